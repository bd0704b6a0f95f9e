/**
 * What `startDevServer` takes and gives back, and the runtime options dev sets over every
 * source: a developer's requests are `ide_debug`, errors are shown, and the gateway's headers
 * (the dev user's, which the gateway's extension adds) are trusted.
 */
import type { Server } from 'node:http';
import type { App } from '../../runtime/app.js';
import type { LogSink } from '../../runtime/log/record.js';
import type { RuntimeOptions } from '../../runtime/options.js';
import type { Extension } from '../../runtime/serve/extension.js';
import type { LocalService } from '../local-service.js';
import type { GatewaySettings } from '../platform/gateway/service.js';
import type { TimersSettings } from '../schedule/service.js';
import { createDevError } from './errors.js';
import type { FunctionStatus } from './reloader.js';

/**
 * The request header the dev server trusts to set `service.trigger` (the runtime's
 * `triggerHeader` option); the console page sends `console_debug` in it. `cloudfn start`
 * trusts no such header unless configured to.
 */
export const DEV_TRIGGER_HEADER = 'x-cloudfn-trigger';

/** The options dev sets over flags, environment and config file. */
export const DEV_OVERRIDES: Partial<RuntimeOptions> = {
  trigger: 'ide_debug',
  exposeErrors: true,
  triggerHeader: DEV_TRIGGER_HEADER,
  trustGatewayHeaders: true,
};

/** The variable that makes the local services start in reverse list order. */
export const SERVICE_ORDER_VAR = 'CLOUDFN_DEV_SERVICE_ORDER';

/**
 * The local services in the order `CLOUDFN_DEV_SERVICE_ORDER` asks for: `listed` (unset, the
 * default) or `reversed`. The order carries no meaning (each service declares what it answers),
 * and cloudfn's own suites run reversed to keep it so (`npm run test:reversed`).
 * @example inServiceOrder(LOCAL_SERVICES, { CLOUDFN_DEV_SERVICE_ORDER: 'reversed' }) // the list, last first
 */
export function inServiceOrder<T>(services: readonly T[], env: NodeJS.ProcessEnv): readonly T[] {
  const value = env[SERVICE_ORDER_VAR];
  if (value === undefined || value === '' || value === 'listed') return services;
  if (value === 'reversed') return [...services].reverse();
  throw createDevError('CLOUDFN_DEV_SERVICE_ORDER', value);
}

/** Options of `startDevServer`, the local services' own settings among them (the timers' `clock`, ...). */
export interface DevServerOptions extends TimersSettings, GatewaySettings {
  /** The project folder (holding functions/). */
  root: string;
  /** Port; 0 picks a free one. @default the PORT variable, else 8000 */
  port?: number | string;
  /** Address to listen on. @default the HOST variable, else 127.0.0.1 (dev is not for the network) */
  host?: string;
  /**
   * Variables set in `process.env` before any function loads, winning over the real
   * environment and `.env` (the platform emulator passes its URLs this way); restored on close.
   * @default {}
   */
  env?: Readonly<Record<string, string>>;
  /** Open the debugger: `true` (127.0.0.1:9229), a port, or `host:port`. @default false */
  inspect?: boolean | string;
  /** Where log records go besides the console page. @default pretty lines on stdout */
  sink?: LogSink;
  /** Colour the default sink's lines. @default on for a TTY unless NO_COLOR is set */
  color?: boolean;
  /** Close gracefully and exit 0 on SIGINT/SIGTERM/SIGHUP, or when the parent process exits (the CLI sets it). @default false */
  handleSignals?: boolean;
  /** Time to gather the events of one save before rebuilding. @default 5 */
  debounceMs?: number;
  /**
   * Check types beside the server (the project's TypeScript in watch mode, in a child process)
   * and show the errors in the terminal and on the console page (the CLI turns it on unless
   * `--no-typecheck`). @default false
   */
  typecheck?: boolean;
  /** The folder of the functions, relative to the root (`--functions-dir`). @default the config's functionsDir, else 'functions' */
  functionsDir?: string;
  /** ms a function's module may take to load before it is marked failed. @default the config's loadTimeout, else 10000 */
  loadTimeoutMs?: number;
  /**
   * Write the typed client of `cloudfn client` to this file (absolute), and again whenever a
   * function is added or removed (`--client`). @default undefined (not written)
   */
  client?: string;
  /**
   * The local services to run (a test adds one), in any order: `CLOUDFN_DEV_SERVICE_ORDER=reversed`
   * runs them last first. @default LOCAL_SERVICES (src/local-services.ts)
   */
  services?: readonly LocalService[];
}

/** A running dev server. */
export interface DevServer {
  /** e.g. `http://127.0.0.1:8000` */
  url: string;
  /** e.g. `http://127.0.0.1:8000${CLOUDFN_PREFIX}/` */
  consoleUrl: string;
  port: number;
  app: App;
  server: Server;
  /** The WebSocket URL of the debugger, when `inspect` was given. */
  inspectorUrl: string | undefined;
  /** The functions and their build state. */
  functions(): FunctionStatus[];
  /**
   * A local service's extension by name (src/local-services.ts): `timers` (its `scheduler()`),
   * `live` (its `rooms()`), `gateway` (its `gateway()`, docs/gateway.md), `sdk`, `console`.
   */
  extension<T extends Extension = Extension>(name: string): T | undefined;
  /** Resolves once the changes seen so far are applied (tests and benchmarks await it). */
  settled(): Promise<void>;
  /** Whether a save is being applied now (seen by the watcher, not yet loaded). */
  applying(): boolean;
  /** Stops watching, ends the console's streams, drains requests and closes the port. */
  close(): Promise<void>;
}
