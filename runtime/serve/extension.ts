/**
 * The one shape of a server extension, as h3's plugins, fastify's `register` and nitro's dev
 * handlers each have one: what `serve()` runs for a local service (the timers, the WebSocket
 * gateway, the live rooms, the console) at each step of a server's life. An extension is plain
 * data and functions; `serve()` calls its parts in list order (and `close` in reverse), so
 * adding a service is one more entry in a list, never one more option of `serve()`.
 */
import type { Server } from 'node:http';
import type { App } from '../app.js';
import type { BeforeHook } from './http-server.js';

/** What the dev console shows of an extension; the console reads it, the runtime does not. */
export interface ExtensionPanel {
  /**
   * JSON answers of the console's API, by path under `/_cloudfn/api/` (`connections` answers
   * `GET /_cloudfn/api/connections`); a throw is answered as an error (its status when it has one).
   * @default none
   */
  api?: Readonly<Record<string, (query: URLSearchParams) => unknown>>;
  /** Fields added to `GET /_cloudfn/api/functions` (the timers add `schedules`). @default none */
  meta?: () => Readonly<Record<string, unknown>>;
}

/** One extension of a server. Every part but the name is optional. */
export interface Extension {
  /** Names it in messages, e.g. `timers`, `gateway`, `live`. */
  readonly name: string;
  /** The top-level keys of cloudfn.config it reads, which the config file then accepts. @default none */
  readonly configKeys?: readonly string[];
  /** Runs once the app exists, before the hooks are made and the port opens; a throw stops start-up. */
  prepare?(app: App): void | Promise<void>;
  /** Hooks answered before routing, after the health and metrics paths; called after every `prepare`. */
  hooks?(app: App): readonly BeforeHook[];
  /** Runs with the http server once it exists, before the port opens (a WebSocket upgrade handler). */
  upgrade?(server: Server, app: App): void;
  /**
   * Variables set in `process.env` once the server listens, from its URL (where a function
   * finds a local service); restored when the server closes.
   */
  env?(url: string): Readonly<Record<string, string>>;
  /** What it shows on the dev console. @default none */
  readonly panel?: ExtensionPanel;
  /** Runs when the server is closed, before it drains; extensions close in reverse order. */
  close?(): void | Promise<void>;
}

/** Every config key the extensions read. */
export function extensionConfigKeys(extensions: readonly Extension[]): string[] {
  return extensions.flatMap((extension) => extension.configKeys ?? []);
}

/**
 * Sets the variables the extensions give for the server's `url` (each one's `env`), and returns
 * how to put the old values back.
 * @example const restore = setExtensionEnv(extensions, 'http://localhost:8000'); restore()
 */
export function setExtensionEnv(extensions: readonly Extension[], url: string): () => void {
  const previous = new Map<string, string | undefined>();
  for (const extension of extensions)
    for (const [key, value] of Object.entries(extension.env?.(url) ?? {})) {
      if (!previous.has(key)) previous.set(key, process.env[key]);
      process.env[key] = value;
    }
  return () => {
    for (const [key, value] of previous) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
