/**
 * The path of one request: logid → route → method → params (query or body) → service →
 * handler (with its timeout and disconnect watch) → response → request line. This file
 * creates the Exchange and counts the request in flight (`requestStarted`); response.ts
 * answers and finish.ts ends it. Functions here are declared at module level and take the
 * exchange, so a request allocates no closures on the sync path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseQuery } from '../body/query.js';
import { readBodyThen } from '../body/read-body.js';
import { createError } from '../errors.js';
import { pickLogid } from '../log/logid.js';
import type { QueryParams, Trigger } from '../types.js';
import { Exchange, type Host } from './exchange.js';
import { finish } from './finish.js';
import { sendError, sendResult } from './response.js';
import { RequestService } from './service.js';

const TRIGGERS: ReadonlySet<string> = new Set<Trigger>(['online', 'ide_debug', 'console_debug']);

/** The request listener of a host (an App). */
export function handle(host: Host, req: IncomingMessage, res: ServerResponse): void {
  const options = host.options;
  const x = new Exchange(host, req, res, pickLogid(req.headers[options.logidHeader]));
  host.requestStarted();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  x.rawPath = q === -1 ? url : url.slice(0, q);
  x.rawQuery = q === -1 ? '' : url.slice(q + 1);
  if (host.closing) return sendError(x, createError('CLOUDFN_SHUTTING_DOWN'));

  let path = x.rawPath;
  if (path.includes('%')) {
    try {
      path = decodeURIComponent(path);
    } catch {
      return sendError(x, createError('CLOUDFN_BAD_PATH', x.rawPath));
    }
  }
  const found = host.router.match(x.rawPath, path);
  if (found === undefined) return sendError(x, createError('CLOUDFN_NOT_FOUND', x.rawPath));
  x.fn = found.fn;
  if (found.params !== undefined) x.routeParams = found.params;

  const method = x.method;
  if (method !== 'GET' && method !== 'POST') return sendError(x, createError('CLOUDFN_METHOD_NOT_ALLOWED', method));

  const triggerHeader = options.triggerHeader;
  if (triggerHeader !== undefined) {
    const claimed = req.headers[triggerHeader];
    if (typeof claimed === 'string' && TRIGGERS.has(claimed)) x.trigger = claimed as Trigger;
  }

  if (method === 'GET') {
    let query: QueryParams;
    try {
      query = parseQuery(x.rawQuery);
    } catch (error) {
      return sendError(x, error);
    }
    return run(x, query, query);
  }
  readBodyThen(req, found.fn.limits.maxBodySize, found.fn.limitNames?.maxBodySize ?? 'maxBodySize', x, onBody, onBodyError);
}

function onBody(x: Exchange, body: Buffer): void {
  x.rawBody = body;
  let params: unknown;
  try {
    // The options object has the protoAction parseBody reads: no object per request.
    params = x.host.parser.parse(x.req.headers['content-type'], body, x.fn!.limits, x.host.options);
  } catch (error) {
    return sendError(x, error);
  }
  if (params instanceof Promise) {
    params.then(
      (value: unknown) => run(x, value, undefined),
      (error: unknown) => sendError(x, error),
    );
  } else {
    run(x, params, undefined);
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
  x.host.logger.line('warn', x.logid, x.functionName(), `the client disconnected while sending the body: ${(error as Error).message ?? String(error)}`);
  finish(x, 499, 0);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

function run(x: Exchange, params: unknown, query: QueryParams | undefined): void {
  const service = new RequestService(x, query);
  let result: unknown;
  try {
    result = x.fn!.handler(params, service);
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
  x.host.logger.line('error', x.logid, x.functionName(), `timed out after ${ms} ms`, { timeoutMs: ms });
  sendError(x, createError('CLOUDFN_TIMEOUT', ms));
}

function onClose(x: Exchange): void {
  if (!x.claim()) return;
  x.abort('disconnect');
  x.host.logger.line('warn', x.logid, x.functionName(), 'the client disconnected before the function answered; service.signal was aborted');
  finish(x, 499, 0);
}
