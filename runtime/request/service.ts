/**
 * The service object (docs/platform-contract.md#service): a view of one request for the
 * handler, and the setters of its response. What it reads is parsed only when read
 * (cookies, the query of a POST, the abort signal), so a request pays for what it uses.
 */
import { isPoisonKey } from '../body/poison.js';
import { parseQuery } from '../body/query.js';
import { formatTraceparent } from '../trace/traceparent.js';
import type { Caller, CookieOptions, LogMethod, QueryParams, Service, TraceContext, Trigger } from '../types.js';
import { readCaller } from './caller.js';
import { cookieCodec, type CookieCodec } from './cookie-codec.js';
import type { Exchange } from './exchange.js';

// A builtin through process.getBuiltinModule rather than an ESM import: on node 24 the namespace
// of node:http reads its WebSocket, CloseEvent and MessageEvent getters, which load undici, the
// web streams and node:crypto (113 modules against 47, issue 33).
const { validateHeaderName } = process.getBuiltinModule('node:http');

/** A header value may not hold CR, LF, NUL or other control characters but tab. */
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

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

function headerValue(field: string, value: unknown): string | string[] {
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

function cookie(name: string, value: string, options: CookieOptions | undefined): string {
  try {
    return codec().serialize(name, value, options);
  } catch (error) {
    throw new TypeError(
      `setCookie(${JSON.stringify(name)}): ${(error as Error).message}; see the options of cookie.serialize`,
    );
  }
}

/** The cookie codec, loaded before any handler runs (request/cookie-codec.ts). */
function codec(): CookieCodec {
  const loaded = cookieCodec.value;
  if (loaded === undefined)
    throw new Error('cloudfn: the cookie codec is not loaded yet; await cookieCodec.load() first');
  return loaded;
}

function traceContext(x: Exchange): TraceContext {
  const sampled = (x.traceFlags & 1) === 1;
  const trace: { -readonly [K in keyof TraceContext]: TraceContext[K] } = {
    traceId: x.traceId,
    spanId: x.spanId,
    sampled,
    traceparent: formatTraceparent(x.traceId, x.spanId, sampled),
  };
  if (x.parentSpanId !== undefined) trace.parentSpanId = x.parentSpanId;
  const state = x.tracestate;
  if (state !== undefined) trace.tracestate = state;
  return Object.freeze(trace);
}

/** The service of one request. Created by the pipeline; handlers receive it as their second argument. */
export class RequestService implements Service {
  readonly headers: Service['headers'];
  readonly httpMethod: string;
  readonly url: string;
  readonly path: string;
  readonly trigger: Trigger;
  readonly logid: string;
  readonly functionName: string;
  readonly rawBody: Buffer;
  readonly routeParams: Record<string, string | string[]>;
  readonly #x: Exchange;
  #query: QueryParams | undefined;
  #cookies: Record<string, string | undefined> | undefined;
  #log: LogMethod | undefined;
  #debug: LogMethod | undefined;
  #info: LogMethod | undefined;
  #warn: LogMethod | undefined;
  #error: LogMethod | undefined;
  #trace: TraceContext | undefined;
  #caller: Caller | undefined | null;

  constructor(exchange: Exchange, query: QueryParams | undefined, rawBody: Buffer) {
    this.#x = exchange;
    this.headers = exchange.req.headers;
    this.httpMethod = exchange.method;
    this.url = exchange.req.url ?? '/';
    this.path = exchange.rawPath;
    this.trigger = exchange.trigger;
    this.logid = exchange.logid;
    this.functionName = exchange.fn?.name ?? '';
    this.rawBody = rawBody;
    this.routeParams = exchange.routeParams;
    this.#query = query;
    this.#cookies = undefined;
    this.#log = this.#debug = this.#info = this.#warn = this.#error = undefined;
    this.#trace = undefined;
    this.#caller = null;
  }

  waitUntil(promise: PromiseLike<unknown>): void {
    const host = this.#x.host;
    host.backgroundStarted();
    Promise.resolve(promise)
      .then(undefined, (error: unknown) => this.error('service.waitUntil: the work failed', error))
      .finally(() => host.backgroundFinished());
  }

  get query(): QueryParams {
    return (this.#query ??= parseQuery(this.#x.rawQuery));
  }

  get cookies(): Record<string, string | undefined> {
    if (this.#cookies === undefined) {
      const header = this.headers.cookie;
      const parsed = typeof header === 'string' ? codec().parse(header) : Object.create(null);
      for (const key of Object.keys(parsed)) if (isPoisonKey(key)) delete parsed[key];
      this.#cookies = parsed as Record<string, string | undefined>;
    }
    return this.#cookies;
  }

  /** Built on first read: a request that never reads it allocates nothing for it. */
  get trace(): TraceContext {
    return (this.#trace ??= traceContext(this.#x));
  }

  /** Read from the headers on first use (null: not read yet). */
  get caller(): Caller | undefined {
    if (this.#caller === null) this.#caller = readCaller(this.headers);
    return this.#caller;
  }

  get signal(): AbortSignal {
    return this.#x.signal();
  }

  set(field: string, value: string | number | readonly string[]): this {
    this.#x.setHeader(field, headerValue(field, value));
    return this;
  }

  remove(field: string): this {
    this.#x.removeHeader(field);
    return this;
  }

  setCookie(name: string, value: string, options?: CookieOptions): this {
    this.#x.addCookie(cookie(name, String(value), options));
    return this;
  }

  clearCookie(name: string, options?: CookieOptions): this {
    const { maxAge: _ignored, ...rest } = options ?? {};
    this.#x.addCookie(cookie(name, '', { path: '/', ...rest, expires: new Date(0) }));
    return this;
  }

  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 599) {
      throw new TypeError(`status code must be an integer from 100 to 599, got ${JSON.stringify(code)}`);
    }
    this.#x.status = code;
    return this;
  }

  // The log methods are created on first read and bound, so `const { log } = service` works,
  // while a request that never logs allocates none of them.
  get log(): LogMethod {
    return (this.#log ??= (...values) => this.#x.log('log', values));
  }
  get debug(): LogMethod {
    return (this.#debug ??= (...values) => this.#x.log('debug', values));
  }
  get info(): LogMethod {
    return (this.#info ??= (...values) => this.#x.log('info', values));
  }
  get warn(): LogMethod {
    return (this.#warn ??= (...values) => this.#x.log('warn', values));
  }
  get error(): LogMethod {
    return (this.#error ??= (...values) => this.#x.log('error', values));
  }

  /** What `console.log(service)` shows: the request, not the internals. */
  toJSON(): Record<string, unknown> {
    return {
      httpMethod: this.httpMethod,
      url: this.url,
      path: this.path,
      trigger: this.trigger,
      logid: this.logid,
      functionName: this.functionName,
      traceId: this.#x.traceId,
    };
  }
}
