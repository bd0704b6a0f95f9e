/**
 * The node:http server around an app: protocol limits (431, 408, 400 with the logid), the
 * requests node would answer bare (CONNECT, no Host, Expect: 100-continue), the guard run first on
 * every request and upgrade from a socket, the hooks answered before routing (the health path,
 * the dev console), and listening. The answer to a connection
 * error is written by client-error.ts, imported on the first one.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { App } from '../app.js';
import { abortBodyRead, clientAbort } from '../body/read-body.js';
import { createError } from '../errors.js';
import { LazyImport } from '../lazy-import.js';
import { checkTimeouts } from '../options.js';
import { isLingering, lingerClose } from '../request/linger.js';
import type { HttpSocket } from './client-error.js';
import { healthHook } from './health.js';

// A builtin through process.getBuiltinModule rather than an ESM import: on node 24 the namespace
// of node:http reads its WebSocket, CloseEvent and MessageEvent getters, which load undici, the
// web streams and node:crypto (113 modules against 47, issue 33).
const http = process.getBuiltinModule('node:http');

/**
 * A hook that sees every request before routing: it answers and returns true, or returns
 * false to let the request through to the functions. Such requests are not logged or counted.
 */
export type BeforeHook = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * A check the server runs first, before the health path and every hook, on each request and
 * each upgrade that arrives over a socket (a local server's Host and Origin policy, as
 * `cloudfn dev` has). Each part answers what it refuses and returns true, or returns false.
 * Requests sent through `inject` (in memory, from the process itself) skip it.
 */
export interface RequestGuard {
  /** Answers a refused request (e.g. 403) and returns true; false lets it through. */
  request(req: IncomingMessage, res: ServerResponse): boolean;
  /** Answers a refused upgrade on its socket and returns true; false lets the upgrade listeners have it. */
  upgrade(req: IncomingMessage, socket: Duplex): boolean;
}

/** Whether a request came through `inject`'s in-memory connection (memory-connection.ts), not a socket. */
function inMemory(req: IncomingMessage): boolean {
  return (req.socket as { inMemory?: boolean }).inMemory === true;
}

/** Options of `createHttpServer`. */
export interface HttpServerOptions {
  /** Run before everything else on each request and upgrade from a socket. @default none */
  guard?: RequestGuard;
  /**
   * Hooks run in order before routing, after the health path (when `options.healthPath` is
   * set). @default []
   */
  before?: readonly BeforeHook[];
}

/** The hooks of each app's server, for `beforeHookNames`. */
const hooksOf = new WeakMap<App, readonly BeforeHook[]>();

/**
 * The names of the hooks the server of `app` runs before routing, in order (a test pins them).
 * @example beforeHookNames(dev.app) // ['health', 'health', 'metrics', 'dispatch']
 */
export function beforeHookNames(app: App): string[] {
  return (hooksOf.get(app) ?? []).map((hook) => hook.name);
}

/**
 * Creates the http server of an app, with the app's timeouts and header limit, answering the
 * health path and the `before` hooks ahead of the functions.
 * @example const server = createHttpServer(app); server.listen(8000)
 */
export function createHttpServer(app: App, options: HttpServerOptions = {}): Server {
  const { maxHeaderSize, headersTimeout, requestTimeout, keepAliveTimeout, healthPath, pingPath } = app.options;
  // node throws a RangeError with a stack for this; say it as an options error.
  checkTimeouts(app.options);
  // node checks both timeouts only every connectionsCheckingInterval (30 s by default), which
  // would let a slow client hold a socket far past headersTimeout.
  const connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(headersTimeout / 2)));
  const hooks = [
    ...(healthPath === undefined ? [] : [healthHook(app, healthPath)]),
    // The platform's container services probe GET /v1/ping: the same answer.
    ...(pingPath === undefined || pingPath === healthPath ? [] : [healthHook(app, pingPath)]),
    ...(options.before ?? []),
  ];
  const handle = app.handle;
  hooksOf.set(app, hooks);
  const guard = options.guard;
  const routed =
    hooks.length === 0
      ? handle
      : (req: IncomingMessage, res: ServerResponse): void => {
          for (let i = 0; i < hooks.length; i++) if (hooks[i]!(req, res)) return;
          handle(req, res);
        };
  const listener =
    guard === undefined
      ? routed
      : (req: IncomingMessage, res: ServerResponse): void => {
          if (!inMemory(req) && guard.request(req, res)) return;
          routed(req, res);
        };
  // requireHostHeader: false lets handle.ts answer a missing Host with the JSON error and a log
  // line instead of node's bare 400.
  const server = http.createServer(
    {
      maxHeaderSize,
      headersTimeout,
      requestTimeout,
      keepAliveTimeout,
      connectionsCheckingInterval,
      requireHostHeader: false,
    },
    listener,
  );
  // Counted from node's own listener on: the connection limit marks those over it (handle.ts).
  const connections = app.connections;
  server.on('connection', (socket: Socket) => connections.opened(socket));
  // Under pressure the app shortens this server's headers and keep-alive timeouts.
  app.overload.attach(server);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => onClientError(app, error, socket));
  if (guard !== undefined) guardUpgrades(server, guard);
  // With a listener, node leaves `Expect: 100-continue` to the app (handle.ts sends the 100 only
  // when it reads the body) and hands CONNECT over instead of closing the socket silently.
  server.on('checkContinue', listener);
  // CONNECT: answered 405 through the pipeline (client-error.ts), then the tunnel is closed.
  server.on('connect', (req: IncomingMessage, socket: Socket) =>
    afterAnswers(socket, (module) => {
      // A client gone while the module loaded: no request to answer.
      if (!socket.destroyed) module.onConnect(app, req, socket);
    }),
  );
  return server;
}

/**
 * Runs the guard's `upgrade` before any `upgrade` listener, whoever adds one and whenever: node
 * calls every listener of an event, so a refusal is kept from the others by not emitting it.
 */
function guardUpgrades(server: Server, guard: RequestGuard): void {
  const emit = server.emit;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'upgrade') {
      const [req, socket] = args as [IncomingMessage, Duplex];
      if (!inMemory(req) && guard.upgrade(req, socket)) return true;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as Server['emit'];
}

const ANSWERING = Symbol('cloudfn.answeringClientError');

/** The answer to a connection error before routing (client-error.ts), imported on the first. */
const clientErrorAnswer = new LazyImport(() => import('./client-error.js'));

/**
 * Errors node:http raises on a connection: bytes it cannot parse, headers too large or too
 * slow, a body too slow or malformed. The error belongs to the request being read:
 * - its body is being read by the pipeline: that request answers it (its logid, its line);
 * - otherwise the request never reached the app: a JSON error with a fresh logid, written only
 *   once the responses already on the socket are finished (never inside one), then a lingering
 *   close. A request that was answered already gets no second answer: the socket is closed.
 */
function onClientError(app: App, error: NodeJS.ErrnoException, socket: Socket): void {
  const s = socket as HttpSocket & { [ANSWERING]?: boolean };
  if (error.code === 'ECONNRESET' || s.destroyed) {
    socket.destroy();
    return;
  }
  // node raises the error again for each later chunk of a failed connection: answer once.
  if (s[ANSWERING] === true || isLingering(socket)) return;
  s[ANSWERING] = true;
  const failure =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? createError('CLOUDFN_HEADERS_TOO_LARGE', app.options.maxHeaderSize)
      : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? createError('CLOUDFN_CHUNK_EXTENSIONS_TOO_LARGE')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? createError('CLOUDFN_REQUEST_TIMEOUT')
          : createError('CLOUDFN_BAD_REQUEST', error.code ?? error.message);
  const incoming = s.parser?.incoming;
  if (incoming != null && !incoming.complete) {
    // The stream ended inside the body: the client closed its side mid-body, which is a
    // disconnect (499 and its warning line), not a malformed request.
    if (error.code === 'HPE_INVALID_EOF_STATE' && abortBodyRead(incoming, clientAbort(error))) {
      // Nobody is left to answer, and node leaves the half-closed socket open.
      socket.destroy();
      return;
    }
    if (abortBodyRead(incoming, failure)) return;
    // The body of a request already answered (or answering itself) failed: no second answer.
    return afterAnswers(s, (module) => module.whenIdle(s, () => lingerClose(socket)));
  }
  afterAnswers(s, (module) => module.whenIdle(s, () => module.answerClientError(app, failure, socket)));
}

/**
 * Runs `then` with the answers of client-error.ts, imported on the first connection error or
 * CONNECT. When it cannot load (a chunk missing from a deployed folder) the socket is closed.
 */
function afterAnswers(socket: Socket, then: (module: typeof import('./client-error.js')) => void): void {
  const loaded = clientErrorAnswer.value;
  if (loaded !== undefined) return then(loaded);
  clientErrorAnswer.load().then(then, () => socket.destroy());
}

/** Starts listening; resolves with the bound address (port 0 picks a free port). */
export function listen(
  server: Server,
  port: number,
  host: string,
): Promise<{ port: number; host: string; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
      resolve({ port: bound, host, url: `http://${shown}:${bound}` });
    });
  });
}
