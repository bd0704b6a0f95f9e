/**
 * The parts of the service (service.ts) a handler uses now and then: the checks of a header it
 * sets, the cookies it reads and the Set-Cookie lines of `setCookie` and `clearCookie`, the trace
 * context, the caller, `waitUntil` and what `console.log(service)` shows.
 * The app loads this file after start, with the cookie codec, and handle.ts waits for both before
 * the first handler runs, so the service calls it synchronously; a bundle's start-up does not
 * read it (issue 44).
 */
import { isPoisonKey } from '../body/poison.js';
import { formatTraceparent } from '../trace/traceparent.js';
import { incomingTracestate } from '../trace/tracestate.js';
import type { CookieOptions, LogMethod, Service, TraceContext } from '../types.js';
import { loadedCodec } from './cookie-codec.js';
import type { Exchange, Host } from './exchange.js';

export { readCaller } from './caller.js';

// A builtin through process.getBuiltinModule rather than an ESM import: on node 24 the namespace
// of node:http reads its WebSocket, CloseEvent and MessageEvent getters, which load undici, the
// web streams and node:crypto (113 modules against 47, issue 33).
const { validateHeaderName } = process.getBuiltinModule('node:http');

/** A header value may not hold CR, LF, NUL or other control characters but tab. */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Throws a TypeError for a header name that is not a token or a value with a control character. */
function checkHeader(field: string, value: string): void {
  try {
    validateHeaderName(field);
  } catch {
    throw new TypeError(
      `header name ${JSON.stringify(field)} is not a valid HTTP token; use letters, digits and - only`,
    );
  }
  if (BAD_HEADER_VALUE.test(value)) {
    throw new TypeError(
      `header ${field} has an invalid character in its value ${JSON.stringify(value)}; remove CR, LF and other control characters`,
    );
  }
}

/**
 * The value `service.set` gives node for `field`: a string, or strings; a TypeError names what
 * is wrong with it.
 * @example headerValue('x-count', 3) // '3'
 */
export function headerValue(field: string, value: unknown): string | string[] {
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value);
    checkHeader(field, text);
    return text;
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown) => {
      if (typeof item !== 'string') throw new TypeError(`header ${field} values must be strings, got ${typeof item}`);
      checkHeader(field, item);
      return item;
    });
  }
  throw new TypeError(
    `header ${field} must be a string, number or array of strings, got ${value === null ? 'null' : typeof value}`,
  );
}

/**
 * The Set-Cookie line of `service.setCookie`; a TypeError names a value or option the cookie
 * package refuses.
 * @example cookieLine('seen', 'yes', { httpOnly: true }) // 'seen=yes; HttpOnly'
 */
export function cookieLine(name: string, value: string, options: CookieOptions | undefined): string {
  try {
    return loadedCodec().serialize(name, value, options);
  } catch (error) {
    throw new TypeError(
      `setCookie(${JSON.stringify(name)}): ${(error as Error).message}; see the options of cookie.serialize`,
    );
  }
}

/** The trace context of `service.trace`, frozen. */
export function traceContext(x: Exchange): TraceContext {
  const sampled = (x.traceFlags & 1) === 1;
  const trace: { -readonly [K in keyof TraceContext]: TraceContext[K] } = {
    traceId: x.traceId,
    spanId: x.spanId,
    sampled,
    traceparent: formatTraceparent(x.traceId, x.spanId, sampled),
  };
  if (x.parentSpanId !== undefined) trace.parentSpanId = x.parentSpanId;
  const state = incomingTracestate(x);
  if (state !== undefined) trace.tracestate = state;
  return Object.freeze(trace);
}

/**
 * The Set-Cookie line of `service.clearCookie`: the cookie emptied and expired, at `/` unless
 * the options say where (a `maxAge` is dropped, since it would outlive the expiry).
 * @example clearingCookieLine('sid') // 'sid=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'
 */
export function clearingCookieLine(name: string, options: CookieOptions | undefined): string {
  const { maxAge: _ignored, ...rest } = options ?? {};
  return cookieLine(name, '', { path: '/', ...rest, expires: new Date(0) });
}

/** The cookies of a request's Cookie header, without the keys that could reach a prototype. */
export function readCookies(header: string | string[] | undefined): Record<string, string | undefined> {
  const parsed = typeof header === 'string' ? loadedCodec().parse(header) : Object.create(null);
  for (const key of Object.keys(parsed)) if (isPoisonKey(key)) delete parsed[key];
  return parsed as Record<string, string | undefined>;
}

/**
 * `service.waitUntil`: the work counts as in flight (a drain waits for it) until it settles; a
 * failure is logged with the request's logid by `error`.
 */
export function waitUntil(host: Host, promise: PromiseLike<unknown>, error: LogMethod): void {
  host.backgroundStarted();
  Promise.resolve(promise)
    .then(undefined, (failure: unknown) => error('service.waitUntil: the work failed', failure))
    .finally(() => host.backgroundFinished());
}

/** What `console.log(service)` shows: the request, not the internals. */
export function describe(service: Service, traceId: string): Record<string, unknown> {
  return {
    httpMethod: service.httpMethod,
    url: service.url,
    path: service.path,
    trigger: service.trigger,
    logid: service.logid,
    functionName: service.functionName,
    traceId,
  };
}
