/**
 * The path of one request: logid → route → method → params (query or body) → service →
 * handler (with its timeout and disconnect watch) → response → request line. This file
 * creates the Exchange and counts the request in flight (`requestStarted`); response.ts
 * answers and finish.ts ends it. Functions here are declared at module level and take the
 * exchange, so a request allocates no closures on the sync path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseQuery } from '../body/query.js';
import { EMPTY_BODY, readBodyThen } from '../body/read-body.js';
import { createError } from '../errors.js';
import { pickGatewayLogid, pickLogid } from '../log/logid.js';
import { otelBridge, otelRegistered } from '../trace/otel.js';
import type { QueryParams, Trigger } from '../types.js';
import { cookieCodec } from './cookie-codec.js';
import { LazyImport } from '../lazy-import.js';
import { Exchange, type Host } from './exchange.js';
import { finish } from './finish.js';
import { closesAfterAnswer } from './linger.js';
import { consoleCaptured, requestContext } from '../log/console-capture.js';
import { stripGatewayHeaders } from './gateway-headers.js';
import type { MemoryBudget } from '../admission/memory-budget.js';
import { type RetryAfterError, sendError, sendResult, withErrorAnswer } from './response.js';
import { RequestService, serviceParts } from './service.js';
import { SOCKET_TRIGGER, type TriggerSocket } from './socket-trigger.js';

/** The targets that are not a plain path, and the paths to decode (decode-path.ts), loaded on the first. */
const oddPaths = new LazyImport(() => import('./decode-path.js'));

const TRIGGERS: ReadonlySet<string> = new Set<Trigger>(['online', 'ide_debug', 'console_debug', 'timer']);

/** The request listener of a host (an App). */
export function handle(host: Host, req: IncomingMessage, res: ServerResponse): void {
  const options = host.options;
  // A request pipelined behind an answer that closes the connection (a 415, a 413, a missing
  // Host) would run and never be answered, and a client that retries would run it twice.
  const socket = req.socket;
  if (socket !== null && closesAfterAnswer(socket)) return notRun(host, req);
  // Behind the gateway its x-tt-logid is the request's logid; elsewhere it is never read (one
  // boolean test on the untrusted path).
  const x = new Exchange(
    host,
    req,
    res,
    options.trustGatewayHeaders
      ? pickGatewayLogid(req.headers, options.logidHeader)
      : pickLogid(req.headers[options.logidHeader]),
  );
  // With no OpenTelemetry SDK registered, this one read of a global is all a request pays.
  if (otelRegistered()) startTelemetry(x);
  host.requestStarted();
  const url = req.url ?? '/';
  // One comparison on the hot path: origin-form targets start with '/'; the others (absolute
  // form, `*`, CONNECT's authority) take the slow path, in decode-path.ts (loaded on first need).
  if (url.charCodeAt(0) !== 47 /* / */)
    return withOddPaths(x, (module) => {
      const target = module.nonOriginTarget(x, url);
      if (target !== undefined) targeted(x, target);
    });
  targeted(x, url);
}

/** Goes on with a request from its origin-form target (`/path?query`): admission, then routing. */
function targeted(x: Exchange, url: string): void {
  const { host, req } = x;
  const socket = req.socket;
  const q = url.indexOf('?');
  x.rawPath = q === -1 ? url : url.slice(0, q);
  x.rawQuery = q === -1 ? '' : url.slice(q + 1);
  if (host.refusing) return sendError(x, createError('CLOUDFN_SHUTTING_DOWN'));
  if (socket !== null && host.connections?.refuses(socket) === true) {
    x.closeConnection = true;
    return sendError(x, createError('CLOUDFN_TOO_MANY_CONNECTIONS', host.connections.limit));
  }
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400 (node's own answer is bare).
  if (req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) {
    x.closeConnection = true;
    return sendError(x, createError('CLOUDFN_MISSING_HOST'));
  }
  const path = x.rawPath;
  // Two scans of a short string on the hot path; only paths with an escape or a dot pay more,
  // and their decoding (decode-path.ts) loads on the first of them.
  if (path.includes('%') || path.includes('/.'))
    return withOddPaths(x, (module) => {
      const decoded = module.decodePath(x, path);
      if (decoded !== undefined) routed(x, decoded);
    });
  routed(x, path);
}

/**
 * Runs `then` with decode-path.ts: at once when it has loaded, else once it has (the request
 * waits); a load that fails is answered with its error.
 */
function withOddPaths(x: Exchange, then: (module: typeof import('./decode-path.js')) => void): void {
  const loaded = oddPaths.value;
  if (loaded !== undefined) return then(loaded);
  oddPaths.load().then(then, (error: unknown) => sendError(x, error));
}

/** Routes a request by its decoded path, checks its method, and admits it against the memory budget. */
function routed(x: Exchange, path: string): void {
  const { host, req } = x;
  const found = host.router.match(x.rawPath, path);
  if (found === undefined) return sendError(x, createError('CLOUDFN_NOT_FOUND', x.rawPath));
  x.fn = found.fn;
  if (found.params !== undefined) x.routeParams = found.params;

  const method = x.method;
  if (method !== 'GET' && method !== 'POST') return sendError(x, createError('CLOUDFN_METHOD_NOT_ALLOWED', method));
  const memory = host.memory;
  if (memory !== undefined) {
    const need = method === 'POST' ? bodyReservation(req, found.fn.limits.maxBodySize) : 0;
    if (!memory.take(need, found.fn)) {
      // A body waits for room, unread: node stops reading its socket once its buffer is full.
      if (need > 0 && memory.canWait) return waitForMemory(x, memory, need);
      memory.refuse();
      // A body left unread cannot be drained safely: the connection closes after the 503.
      x.closeConnection = need > 0;
      return sendError(x, createError('CLOUDFN_OVERLOADED', memory.held, need, memory.limit));
    }
    x.heldBytes = need;
  }
  admitted(x);
}

/** Runs an admitted request: its trigger, then its query (GET) or its body (POST). */
function admitted(x: Exchange): void {
  const { host, req, res } = x;
  const options = host.options;
  const fn = x.fn!;
  const method = x.method;
  const triggerHeader = options.triggerHeader;
  if (triggerHeader !== undefined) {
    const claimed = req.headers[triggerHeader];
    if (typeof claimed === 'string' && TRIGGERS.has(claimed)) x.trigger = claimed as Trigger;
  }
  // A request the server sent itself (a timer) carries its trigger on its in-memory socket:
  // one property read, a miss, for every other request.
  const own = (req.socket as TriggerSocket | null)?.[SOCKET_TRIGGER];
  if (own !== undefined) x.trigger = own;

  if (method === 'GET') {
    let query: QueryParams;
    try {
      query = parseQuery(x.rawQuery, fn.limits.maxParams, fn.limitSources?.maxParams);
    } catch (error) {
      return sendError(x, error);
    }
    return run(x, query, query, EMPTY_BODY);
  }
  const reading = readBodyThen(
    req,
    fn.limits.maxBodySize,
    fn.limitSources?.maxBodySize ?? 'maxBodySize',
    x,
    onBody,
    onBodyError,
  );
  // The server answers `Expect: 100-continue` itself (serve/http-server.ts listens to
  // checkContinue), so that a body refused before reading (413, 415) gets no 100 Continue.
  if (reading && !x.done && req.headers.expect !== undefined) res.writeContinue();
}

/**
 * Parks a request whose body does not fit the memory budget until the budget admits it (in
 * order of arrival) or `memoryWaitTimeout` passes (503 with the seconds the budget is likely to
 * need as `Retry-After`). A client that goes away meanwhile leaves the queue.
 */
function waitForMemory(x: Exchange, memory: MemoryBudget, need: number): void {
  const socket = x.req.socket;
  const gone = (): void => {
    leave();
    if (!x.claim()) return;
    x.line('warn', 'the client disconnected while its body waited for the memory budget');
    finish(x, 499, 0);
  };
  const leave = memory.wait(
    need,
    () => {
      socket?.off('close', gone);
      if (x.done) return memory.give(need);
      x.heldBytes = need;
      admitted(x);
    },
    (retryAfter) => {
      socket?.off('close', gone);
      x.closeConnection = true;
      const error = createError('CLOUDFN_OVERLOADED', memory.held, need, memory.limit);
      (error as RetryAfterError).retryAfter = retryAfter;
      sendError(x, error);
    },
  );
  socket?.once('close', gone);
}

/**
 * The bytes a body will hold once read: its declared length (a longer one is refused 413 by the
 * read), the whole limit for a chunked body, whose length is known only at its end.
 */
function bodyReservation(req: IncomingMessage, limit: number): number {
  if (req.headers['transfer-encoding'] !== undefined) return limit;
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(length) ? Math.min(length, limit) : 0;
}

/**
 * Leaves a request pipelined behind a closing answer unrun and unanswered (its answer could
 * not be written: the connection ends after the one before), with a line saying so, written by
 * error-answer.ts (loaded when the app is created).
 */
function notRun(host: Host, req: IncomingMessage): void {
  const logid = pickLogid(req.headers[host.options.logidHeader]);
  withErrorAnswer((module) => module.logNotRun(host, req, logid));
}

/** Starts the request's span and duration once the bridge is loaded (the first requests after an SDK registers go without). */
function startTelemetry(x: Exchange): void {
  const bridge = otelBridge();
  if (bridge !== undefined) x.otel = bridge.startServer(x);
}

/**
 * The body goes from here to the service as an argument, never onto the Exchange: the Exchange
 * is made when the request arrives and, with an upload read over many socket reads, often
 * outlives two young-generation GCs and sits in the old generation. A body it pointed to was
 * then kept by it through every young GC until the next major one, and promoted: on the 8 MiB
 * upload that made 0.15 major GCs per request where raw node:http makes none (one connection),
 * 0.23 against 0.13 with four (docs/performance-history.md#the-8-mib-upload-round-four-issue-33).
 */
function onBody(x: Exchange, body: Buffer): void {
  let params: unknown;
  try {
    // The options object has the protoAction parseBody reads: no object per request.
    params = x.host.parser.parse(x.req.headers['content-type'], body, x.fn!.limits, x.host.options, x.fn!.limitSources);
  } catch (error) {
    return sendError(x, error);
  }
  if (params instanceof Promise) {
    params.then(
      (value: unknown) => run(x, value, undefined, body),
      (error: unknown) => sendError(x, error),
    );
  } else {
    run(x, params, undefined, body);
  }
}

function onBodyError(x: Exchange, error: unknown): void {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') {
    // The rest of the body was never read, so the socket cannot carry another request.
    x.closeConnection = true;
    return sendError(x, error);
  }
  // The client went away while sending: nobody is left to answer.
  if (!x.claim()) return;
  x.line('warn', `the client disconnected while sending the body: ${(error as Error).message ?? String(error)}`);
  finish(x, 499, 0);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

function run(x: Exchange, params: unknown, query: QueryParams | undefined, body: Buffer): void {
  // The app started loading the cookie codec and the service's parts; only a request that beats
  // them waits.
  if (cookieCodec.value === undefined || serviceParts.value === undefined) {
    Promise.all([cookieCodec.load(), serviceParts.load()]).then(
      () => run(x, params, query, body),
      (error: unknown) => sendError(x, error),
    );
    return;
  }
  const options = x.host.options;
  // Not behind the gateway: a client's X-TT-* (and live-data) headers claim a user, a room or
  // a connection nobody vouched for. A request this process wrote itself on a marked in-memory
  // connection (a timer's firing, with its x-tt-logid) is no client's, so it keeps them.
  if (!options.trustGatewayHeaders && (x.req.socket as TriggerSocket | null)?.[SOCKET_TRIGGER] === undefined)
    stripGatewayHeaders(x.req.headers);
  const service = new RequestService(x, query, body);
  let result: unknown;
  try {
    // Inside the request's context, console.* calls of the handler carry its logid
    // (log/console-capture.ts); with capture off, or console not captured (an app embedded
    // with createApp alone), the handler is called directly.
    result =
      options.captureConsole && consoleCaptured()
        ? requestContext.run(x, callHandler, x, params, service)
        : callHandler(x, params, service);
  } catch (error) {
    return sendError(x, error);
  }
  if (!isThenable(result)) return sendResult(x, result);
  result.then(
    (value) => sendResult(x, value),
    (error: unknown) => sendError(x, error),
  );
  // Only a handler that waits can time out or outlive its client, so only it pays for the
  // timer and the close listener. Most async handlers (an `async` function that computes and
  // returns) settle in this same turn of microtasks: the check is queued behind the reaction
  // above, so for them no Timeout is created, none is cleared, and node's timer handle is not
  // ref'd and unref'd once per request. Measured on the GET benchmark: about 0.5 µs of CPU per
  // request (timers insert, unenroll, toggleTimerRef, the close listener and their garbage).
  // A reaction on a settled Promise rather than queueMicrotask, which also makes an
  // AsyncResource and a bound function per call (40 instead of 70-110 ns).
  SETTLED.then(() => watch(x));
}

/** Calls the handler; in the span's context, spans it starts (or its libraries do) are children of it. */
function callHandler(x: Exchange, params: unknown, service: RequestService): unknown {
  return x.otel === undefined ? x.fn!.handler(params, service) : x.otel.run(x.fn!.handler, params, service);
}

/** Reactions on it run in the order they were added, after those already queued. */
const SETTLED = Promise.resolve();

/** Arms the timeout and the disconnect listener of a handler still running after its first turn. */
function watch(x: Exchange): void {
  if (x.done) return;
  x.timer = setTimeout(onTimeout, x.fn!.timeout, x);
  x.res.once('close', () => onClose(x));
}

function onTimeout(x: Exchange): void {
  if (x.done) return;
  const ms = x.fn!.timeout;
  x.abort('timeout');
  x.line('error', `timed out after ${ms} ms`, { timeoutMs: ms });
  sendError(x, createError('CLOUDFN_TIMEOUT', ms));
}

function onClose(x: Exchange): void {
  if (!x.claim()) return;
  x.abort('disconnect');
  x.line('warn', 'the client disconnected before the function answered; service.signal was aborted');
  finish(x, 499, 0);
}
