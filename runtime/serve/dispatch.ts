/**
 * The one dispatcher of the extensions (extension.ts), compiled once by `serve()` into one
 * before hook, as nitro mounts dev handlers on one router and h3 `mount`s an app under a base:
 * first the `Host` (a platform host an extension stands in for: the push API's, the live
 * rooms'), then one prefix check (`/_cloudfn/`), then a map lookup of the route its first
 * segments name; then a call addressed to the client gateway (its header, `gateway` among the
 * hosts), which answers it or hands it on; a request to a function then passes every
 * extension's `onRequest` (which may add to it or make it wait, never answer it). Each route and host has one owner, so the order
 * of the extensions carries no meaning: two that declare the same one stop start-up.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { createError } from '../errors.js';
import { CLIENT_GATEWAY_HEADER, classifyHost } from '../intranet/hosts.js';
import { CLOUDFN_PREFIX } from '../options.js';
import { SOCKET_TRIGGER, type TriggerSocket } from '../request/socket-trigger.js';
import type { Extension, RouteHandler } from './extension.js';
import { sendJsonError } from './hook-io.js';
import type { BeforeHook } from './http-server.js';

/** The host a request names, without its port, when it is one an extension stands in for. */
function hostKind(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  return host === undefined ? undefined : classifyHost(host.replace(/:\d+$/, ''))?.kind;
}

/** Runs `handler`, answering a throw as the JSON error shape. */
function run(
  handler: RouteHandler,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  next: (req: IncomingMessage, res: ServerResponse) => void,
): true {
  try {
    handler(req, res, path, () => next(req, res));
  } catch (error) {
    sendJsonError(res, error);
  }
  return true;
}

/** Adds `key` to `table` for `owner`, refusing a key another extension declared. */
function claim(
  table: Map<string, RouteHandler>,
  owners: Map<string, string>,
  what: string,
  key: string,
  handler: RouteHandler,
  owner: string,
): void {
  const taken = owners.get(key);
  if (taken !== undefined)
    throw createError(
      'CLOUDFN_OPTIONS',
      'extensions',
      `${owner} and ${taken} both declare the ${what} ${JSON.stringify(key)}; give it to one of them`,
    );
  owners.set(key, owner);
  table.set(key, handler);
}

/**
 * The dispatcher of `extensions`, or undefined when none declares a route, a host or an
 * `onRequest`.
 * @example const hook = compileDispatcher(app, [liveExtension]); createHttpServer(app, { before: [hook] })
 */
export function compileDispatcher(app: App, extensions: readonly Extension[]): BeforeHook | undefined {
  const routes = new Map<string, RouteHandler>();
  const hosts = new Map<string, RouteHandler>();
  const routeOwners = new Map<string, string>();
  const hostOwners = new Map<string, string>();
  const onRequest: NonNullable<Extension['onRequest']>[] = [];
  for (const extension of extensions) {
    for (const [key, handler] of Object.entries(extension.routes?.(app) ?? {}))
      claim(routes, routeOwners, 'route', key, handler, extension.name);
    for (const [kind, handler] of Object.entries(extension.hosts?.(app) ?? {}))
      if (handler !== undefined) claim(hosts, hostOwners, 'host', kind, handler, extension.name);
    if (extension.onRequest !== undefined) onRequest.push(extension.onRequest.bind(extension));
  }
  if (routes.size === 0 && hosts.size === 0 && onRequest.length === 0) return undefined;
  const prefix = `${CLOUDFN_PREFIX}/`;
  const gateway = hosts.get('gateway');
  /** The request on to the functions: every `onRequest`, then the app (what `next` does). */
  const toFunctions = (req: IncomingMessage, res: ServerResponse): void => {
    if (!passOn(req, res)) app.handle(req, res);
  };
  /** Runs every `onRequest`; true when one makes the request wait (the app then takes it after). */
  const passOn = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (onRequest.length === 0) return false;
    let waits: Promise<void>[] | undefined;
    for (const each of onRequest) {
      const waiting = each(req);
      if (waiting !== undefined) (waits ??= []).push(waiting);
    }
    if (waits === undefined) return false;
    void Promise.all(waits).then(
      () => app.handle(req, res),
      () => app.handle(req, res),
    );
    return true;
  };
  return function dispatch(req, res) {
    if (hosts.size > 0) {
      const kind = hostKind(req);
      const handler = kind === undefined ? undefined : hosts.get(kind);
      if (handler !== undefined) return run(handler, req, res, req.url ?? '/', toFunctions);
    }
    const url = req.url ?? '/';
    if (routes.size > 0 && (url.startsWith(prefix) || url === CLOUDFN_PREFIX || url.startsWith(`${CLOUDFN_PREFIX}?`))) {
      const rest = url.slice(prefix.length);
      const end = rest.search(/[?]/);
      const segments = (end === -1 ? rest : rest.slice(0, end)).split('/');
      // The longest declared key of at most two segments (`api/database` before `api`), then
      // the catch-all `''` (the console's page).
      for (const key of [`${segments[0]}/${segments[1]}`, segments[0]!, '']) {
        const handler = routes.get(key);
        if (handler === undefined || (key !== '' && segments.length < key.split('/').length)) continue;
        return run(handler, req, res, key === '' ? `/${rest}` : rest.slice(key.length), toFunctions);
      }
    }
    // The server's own requests (a timer's firing, a live room's push) are marked on their
    // in-memory connection: they pass the routes, never the client gateway or a client's additions.
    if ((req.socket as TriggerSocket)[SOCKET_TRIGGER] !== undefined) return false;
    if (gateway !== undefined && req.headers[CLIENT_GATEWAY_HEADER] !== undefined)
      return run(gateway, req, res, url, toFunctions);
    return passOn(req, res);
  };
}
