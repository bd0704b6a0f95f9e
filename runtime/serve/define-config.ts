/**
 * `defineConfig` and `CloudfnConfig`: the typed shape of `cloudfn.config.ts`, derived from the
 * option table in runtime/options.ts, so an option added there is a config key here too.
 */
import type { ConfigFileOptionKey, RuntimeOptions } from '../options.js';
import type { DevUser } from '../shapes.js';
import type { FunctionConfig, Limits } from '../types.js';

/**
 * Everything `cloudfn.config.*` may hold; every key is optional. See docs/configuration.md.
 * Options that can be switched off (`healthPath: 'off'`) take the string, as in the JSON file.
 */
export type CloudfnConfig = {
  /** The JSON Schema of the file, for editors (`cloudfn.config.json`); ignored by cloudfn. */
  $schema?: string;
  /** Custom routes, path-to-regexp pattern → function name: `{ '/videos/:vid': 'videos/get' }`. */
  routes?: Record<string, string>;
  /** Per-function options by name, as an alternative to `export const config`. */
  functions?: Record<string, FunctionConfig>;
  /** Body and multipart limits of every function. */
  limits?: Partial<Limits>;
  /** The caller `cloudfn dev` sends as the gateway would (docs/platform-projects.md). */
  devUser?: Partial<DevUser>;
  /**
   * `cloudfn dev`'s live-room simulator: the path the room's messages are POSTed to, the anchor
   * (`x-anchor-openid`, default the dev user's openid) and the data secret that signs each push
   * (docs/live-room.md).
   */
  liveData?: { path: string; anchorOpenid?: string; secret?: string };
  /**
   * `cloudfn start` runs the platform's WebSocket gateway (connections at
   * `/__dycloud__/ws/connect/`, the push API for the functions' own calls), as
   * `CLOUDFN_GATEWAY=1` (docs/gateway.md#production-mode). @default false
   */
  gateway?: boolean;
} & { [K in ConfigFileOptionKey]?: Exclude<RuntimeOptions[K], undefined> };

/** The keys of `T` that `CloudfnConfig` does not have, each typed `never` so it is an error. */
type NoExtraKeys<T> = { [K in Exclude<keyof T, keyof CloudfnConfig>]: never };

/**
 * Types a config file: unknown keys are type errors (`{ prot: 8000 }` does not compile), and
 * the value is returned as given. cloudfn checks the same at start-up, with the key it meant.
 * @example
 * // cloudfn.config.ts
 * import { defineConfig } from 'cloudfn';
 * export default defineConfig({ port: 3000, limits: { maxBodySize: 1_048_576 } });
 */
export function defineConfig<const T extends CloudfnConfig>(config: T & NoExtraKeys<T>): T {
  return config;
}
