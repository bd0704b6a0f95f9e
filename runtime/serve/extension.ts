/**
 * The one shape of a server extension, as h3's plugins, fastify's `register` and nitro's dev
 * handlers each have one: what `serve()` runs for a local service (the timers, the WebSocket
 * gateway, the live rooms, the console) at each step of a server's life. An extension declares
 * what it answers (its `routes` under `/_cloudfn/`, the platform `hosts` it stands in for) and
 * `serve()` compiles them into one dispatcher (dispatch.ts), so the order of a list carries no
 * meaning; adding a service is one more entry in a list, never one more option of `serve()`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { IntranetHost } from '../intranet/hosts.js';

/**
 * Answers one request of a route or a host (any method), writing the whole answer; `path` is
 * what follows the route's key (`/7001/token?x=1` of `<prefix>/live/7001/token?x=1`), or the
 * whole URL of a request that came by a host. A throw is answered as the JSON error shape.
 * `next` hands the request on to the functions instead (through every `onRequest`), for a
 * stand-in that lets a call pass: the client gateway, for a call to this service within its limits.
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, path: string, next?: () => void) => void;

/**
 * The platform hosts an extension may stand in for (runtime/intranet/hosts.ts): the push API's
 * (`ws-push`), the live rooms' (`webcast`), and the client gateway in front of every service
 * (`gateway`), which `createCloud` addresses by its header (`CLIENT_GATEWAY_HEADER`).
 */
export type PlatformHostKind = Exclude<IntranetHost['kind'], 'inner-call'> | 'gateway';

/** One extension of a server. Every part but the name is optional. */
export interface Extension {
  /** Names it in messages, e.g. `timers`, `gateway`, `live`. */
  readonly name: string;
  /** The top-level keys of cloudfn.config it reads, which the config file then accepts. @default none */
  readonly configKeys?: readonly string[];
  /** Runs once the app exists, before the routes are read and the port opens; a throw stops start-up. */
  prepare?(app: App): void | Promise<void>;
  /**
   * What it answers under `/_cloudfn/`, by the path's first segment or two (`live` answers
   * `/_cloudfn/live/…`, `api/database` answers `/_cloudfn/api/database…`, `''` every path there no
   * other key takes: the console's page); read once after every `prepare`. Two extensions
   * declaring one key stop start-up. @default none
   */
  routes?(app: App): Readonly<Record<string, RouteHandler>>;
  /**
   * The platform hosts it answers for (`ws-push`, `webcast`): a request whose `Host` is one of
   * them goes to its handler, whatever the path; and `gateway`, the client gateway, which gets
   * every other request that carries `CLIENT_GATEWAY_HEADER` (answering in the platform's place
   * or passing it on with `next`). Read once after every `prepare`. @default none
   */
  hosts?(app: App): Readonly<Partial<Record<PlatformHostKind, RouteHandler>>>;
  /**
   * Sees each request to a function before it is routed: it may add to it (the dev user's
   * headers) or make it wait (a save being applied), never answer it. @default none
   */
  onRequest?(req: IncomingMessage): Promise<void> | undefined;
  /** Runs with the http server once it exists, before the port opens (a WebSocket upgrade handler). */
  upgrade?(server: Server, app: App): void;
  /**
   * Variables set in `process.env` once the server listens, from its URL (where a function
   * finds a local service); restored when the server closes.
   */
  env?(url: string): Readonly<Record<string, string>>;
  /**
   * What a tool shows of it (`cloudfn dev`'s console, which types it: src/local-service.ts);
   * the runtime carries it and never reads it. @default none
   */
  readonly panel?: unknown;
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
