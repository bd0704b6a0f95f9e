/**
 * The shape of a local service of `cloudfn dev` (local-services.ts holds them all): its name, the config
 * keys it reads, and how it makes its server extension (runtime/serve/extension.ts) from what
 * the dev server gives every service (`ServiceContext`). Types only.
 */
import type { Logger } from '../runtime/log/logger.js';
import type { ConfigFile } from '../runtime/serve/config-file.js';
import type { Extension } from '../runtime/serve/extension.js';
import type { DevUser } from '../runtime/shapes.js';

/** A function as the services see it change (a save, a rebuild, a removal). */
export interface ServiceFunction {
  name: string;
  /** Counts successful loads: a new number is new code. */
  version: number;
}

/** What services tell each other through `publish` and `onPublished`: event → data. */
export interface ServiceEvents {
  /** A WebSocket client connected with a live room of its own: its `x-room-id`, `x-anchor-openid`… */
  'ws-room': Readonly<Record<string, string>>;
}

/** What the dev server gives each service. */
export interface ServiceContext {
  root: string;
  config: ConfigFile;
  logger: Logger;
  /** The user the dev server acts as (config devUser, CLOUDFN_DEV_*). */
  devUser: DevUser;
  /**
   * The options `startDevServer` was given; each service reads its own settings there, typed
   * beside it (the timers' `clock`, the gateway's `wsIdleTimeoutMs`).
   */
  settings: Readonly<Record<string, unknown>>;
  /** Sends an event to the console's open pages (a panel's live feed) and to the services that listen. */
  publish(event: string, data: unknown): void;
  /** Hears what another service publishes (the gateway tells the live rooms of a room's anchor). */
  onPublished<E extends keyof ServiceEvents>(event: E, listener: (data: ServiceEvents[E]) => void): void;
  /**
   * Sets variables in `process.env` that win over `.env`, before any function loads (when
   * called while the service is made), put back when the dev server closes.
   */
  setEnv(vars: Readonly<Record<string, string>>): void;
  /** The value the project's `.env` gives `key`, whether or not it applies. */
  dotenvValue(key: string): string | undefined;
  /** Calls `listener` with every function each time the list changes. */
  onFunctions(listener: (functions: readonly ServiceFunction[]) => void): void;
}

/** What the dev console shows of an extension; the console reads it, the runtime does not. */
export interface ExtensionPanel {
  /**
   * JSON answers of the console's API, by path under the console's `api/` route (`connections`
   * answers `GET <prefix>/api/connections`); a throw is answered as an error (its status when it has one).
   * @default none
   */
  api?: Readonly<Record<string, (query: URLSearchParams) => unknown>>;
  /** Fields added to the console's `api/functions` answer (the timers add `schedules`). @default none */
  meta?: () => Readonly<Record<string, unknown>>;
}

/** A server extension as a tool sees it: with its console panel typed. */
export interface ServiceExtension extends Extension {
  /** What it shows on the dev console. @default none */
  readonly panel?: ExtensionPanel;
}

/** One local service: its name, its config keys, and how to make its extension. */
export interface LocalService {
  readonly name: string;
  /**
   * Top-level keys of cloudfn.config it reads, for a service outside the list of
   * src/local-services.ts (a test's): the listed ones declare theirs in src/config/config-keys.ts,
   * which every command reads before any service is made. @default none
   */
  readonly configKeys?: readonly string[];
  /**
   * Imports the service and makes its extension for one dev server; making it may be async
   * (a component's server starting), and runs before the functions load.
   */
  load(): Promise<(context: ServiceContext) => ServiceExtension | Promise<ServiceExtension>>;
}
