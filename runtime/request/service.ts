/**
 * The service object (docs/platform-contract.md#service): a view of one request for the
 * handler, and the setters of its response. What it reads is parsed only when read
 * (cookies, the query of a POST, the abort signal), so a request pays for what it uses. The
 * parts a handler uses now and then (header checks, cookies, the trace context, the caller,
 * `waitUntil`, `toJSON`) are service-parts.ts, loaded after start and before the first handler runs.
 */
import { parseQuery } from '../body/query.js';
import { LazyImport } from '../lazy-import.js';
import type { Caller, CookieOptions, LogMethod, QueryParams, Service, TraceContext, Trigger } from '../types.js';
import type { LogLevel } from '../log/record.js';
import type { Exchange } from './exchange.js';

/**
 * The parts of the service a handler uses now and then (service-parts.ts), loaded after start
 * and before the first handler runs: handle.ts waits for them as for the cookie codec.
 */
export const serviceParts = new LazyImport(() => import('./service-parts.js'));

/** The loaded parts; a service made outside the pipeline provides them first (fake-service.ts). */
function parts(): typeof import('./service-parts.js') {
  const loaded = serviceParts.value;
  if (loaded === undefined)
    throw new Error('cloudfn: the service parts are not loaded yet; await serviceParts.load() first');
  return loaded;
}

/** A log method of the service, bound to its exchange and level. */
function logAt(this: Exchange, level: LogLevel, ...values: unknown[]): void {
  this.log(level, values);
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
    parts().waitUntil(this.#x.host, promise, this.error);
  }

  get query(): QueryParams {
    return (this.#query ??= parseQuery(this.#x.rawQuery));
  }

  get cookies(): Record<string, string | undefined> {
    return (this.#cookies ??= parts().readCookies(this.headers.cookie));
  }

  /** Built on first read: a request that never reads it allocates nothing for it. */
  get trace(): TraceContext {
    return (this.#trace ??= parts().traceContext(this.#x));
  }

  /** Read from the headers on first use (null: not read yet). */
  get caller(): Caller | undefined {
    if (this.#caller === null) this.#caller = parts().readCaller(this.headers);
    return this.#caller;
  }

  get signal(): AbortSignal {
    return this.#x.signal();
  }

  set(field: string, value: string | number | readonly string[]): this {
    this.#x.setHeader(field, parts().headerValue(field, value));
    return this;
  }

  remove(field: string): this {
    this.#x.removeHeader(field);
    return this;
  }

  setCookie(name: string, value: string, options?: CookieOptions): this {
    this.#x.addCookie(parts().cookieLine(name, String(value), options));
    return this;
  }

  clearCookie(name: string, options?: CookieOptions): this {
    this.#x.addCookie(parts().clearingCookieLine(name, options));
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
  // while a request that never logs allocates none of them. Bound functions, not arrow
  // functions: an arrow function made here per request made V8 grow its young generation under
  // load (to 32 MB on Node 24, peak RSS about 1.5×), a bound one does not
  // (docs/performance.md#node-24s-young-generation).
  get log(): LogMethod {
    return (this.#log ??= logAt.bind(this.#x, 'log'));
  }
  get debug(): LogMethod {
    return (this.#debug ??= logAt.bind(this.#x, 'debug'));
  }
  get info(): LogMethod {
    return (this.#info ??= logAt.bind(this.#x, 'info'));
  }
  get warn(): LogMethod {
    return (this.#warn ??= logAt.bind(this.#x, 'warn'));
  }
  get error(): LogMethod {
    return (this.#error ??= logAt.bind(this.#x, 'error'));
  }

  /** What `console.log(service)` shows: the request, not the internals. */
  toJSON(): Record<string, unknown> {
    return parts().describe(this, this.#x.traceId);
  }
}
