/**
 * The adapter of the platform's function service (`cloudfn build --target function-service`):
 * the platform loads a file and calls `module.exports(params, context)`; this turns its
 * `context` into cloudfn's service, calls the function, and turns the outcome back. The
 * contract's members pass straight through; cloudfn's own additions get the fallbacks of
 * docs/decisions.md (the function service section). Nothing here loads the server, the body
 * readers or OpenTelemetry: a built file carries this, the function, and what it imports.
 */
import './node14-apis.js';
import { isStandardSchema } from '../contract/standard-schema.js';
import { issuesText } from '../contract/pointer.js';
import { withContract } from '../contract/validate.js';
import { CloudfnError } from '../errors.js';
import { pickGatewayLogid } from '../log/logid.js';
import { readCaller } from '../request/caller.js';
import { stripGatewayHeaders } from '../request/gateway-headers.js';
import { errorBody } from '../request/error-body.js';
import { ids } from '../trace/ids.js';
import { formatTraceparent, parseTraceparent } from '../trace/traceparent.js';
import { checkTracestate } from '../trace/tracestate.js';
import type {
  Caller,
  CookieOptions,
  Handler,
  LogMethod,
  QueryParams,
  Service,
  TraceContext,
  Trigger,
} from '../types.js';

/** The request header carrying the platform's log id (platform contract, Signing). */
export const LOGID_HEADER = 'x-platform-logid';

/** The platform's `context`: the members of the contract's service table (docs/platform-contract.md#service). */
export interface PlatformContext {
  headers: Record<string, string | string[] | undefined>;
  httpMethod: string;
  path: string;
  url: string;
  query: QueryParams;
  cookies: Record<string, string | undefined>;
  trigger: string;
  set(field: string, value: string | number | readonly string[]): unknown;
  remove(field: string): unknown;
  setCookie(name: string, value: string, options?: CookieOptions): unknown;
  clearCookie(name: string, options?: CookieOptions): unknown;
  status(code: number): unknown;
  log: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

/** The handler a built file exports: what the platform calls. */
export type PlatformHandler = (params: unknown, context: PlatformContext) => Promise<unknown>;

/** A log method of the platform's context, looked up when called (the service binds it per level). */
function logTo(this: PlatformContext, level: 'log' | 'debug' | 'info' | 'warn' | 'error', ...values: unknown[]): void {
  this[level](...values);
}

/** The headers without the platform-set ones (gateway-headers.ts), as a copy: the platform's own object is left alone. */
function untrusted(headers: PlatformContext['headers']): PlatformContext['headers'] {
  const copy = { ...headers };
  stripGatewayHeaders(copy);
  return copy;
}

/** Options of `functionServiceHandler`, baked into the built file by the build. */
export interface FunctionServiceHandlerOptions {
  /**
   * Keep the platform-set headers (gateway-headers.ts). Every call of the function service comes
   * through the platform, so the build bakes `true` unless the project set
   * `trustGatewayHeaders: false` (docs/decisions.md#the-gateways-caller-headers).
   * @default true
   */
  trustGatewayHeaders?: boolean;
}

/** A signal that never aborts: the function service stops a function itself, at its own timeout. */
function idleSignal(): AbortSignal {
  if (typeof globalThis.AbortController === 'function') return new AbortController().signal;
  // Node 14 has no AbortController: the members cloudfn's clients read.
  return {
    aborted: false,
    reason: undefined,
    addEventListener() {},
    removeEventListener() {},
  } as unknown as AbortSignal;
}

/**
 * The bytes of the body, as far as params keep them: the function service parses the body
 * before the function runs. A Buffer or a string is the body itself; an object is written back
 * as compact JSON (the bytes a JSON sender that writes compact JSON, as the platform's callbacks
 * do, signed); a GET has none.
 */
function rawBodyOf(params: unknown, method: string): Buffer {
  if (Buffer.isBuffer(params)) return params;
  if (typeof params === 'string') return Buffer.from(params, 'utf8');
  if (method === 'GET' || params === undefined || params === null) return Buffer.alloc(0);
  return Buffer.from(JSON.stringify(params), 'utf8');
}

function traceOf(headers: PlatformContext['headers']): TraceContext {
  const incoming = parseTraceparent(headers.traceparent);
  const spanId = ids.spanId();
  const traceId = incoming?.traceId ?? ids.traceId();
  const sampled = incoming === undefined ? true : (incoming.flags & 1) === 1;
  const tracestate = incoming === undefined ? undefined : checkTracestate(headers.tracestate);
  return {
    traceId,
    spanId,
    ...(incoming === undefined ? {} : { parentSpanId: incoming.parentId }),
    sampled,
    traceparent: formatTraceparent(traceId, spanId, sampled),
    ...(tracestate === undefined ? {} : { tracestate }),
  };
}

/** The service a function receives on the function service, built around the platform's context. */
class FunctionServiceService implements Service {
  readonly #context: PlatformContext;
  readonly #headers: PlatformContext['headers'];
  readonly #params: unknown;
  #trace: TraceContext | undefined;
  #signal: AbortSignal | undefined;
  #rawBody: Buffer | undefined;
  #caller: Caller | undefined | null = null;
  readonly pending: PromiseLike<unknown>[] = [];
  readonly logid: string;
  readonly functionName: string;
  readonly routeParams: Record<string, string | string[]> = {};
  readonly log: LogMethod;
  readonly debug: LogMethod;
  readonly info: LogMethod;
  readonly warn: LogMethod;
  readonly error: LogMethod;
  constructor(context: PlatformContext, params: unknown, functionName: string, trustGatewayHeaders: boolean) {
    this.#context = context;
    this.#headers = trustGatewayHeaders ? context.headers : untrusted(context.headers);
    this.#params = params;
    this.functionName = functionName;
    // Behind the platform's gateway (trusted, as the caller is): its x-tt-logid first.
    this.logid = pickGatewayLogid(context.headers, LOGID_HEADER);
    // The platform's own log methods: it adds the logid and the function name to each line.
    // Bound, not arrow functions: one made per request and kept on it made V8 grow its young
    // generation (runtime/request/service.ts says more).
    this.log = logTo.bind(context, 'log');
    this.debug = logTo.bind(context, 'debug');
    this.info = logTo.bind(context, 'info');
    this.warn = logTo.bind(context, 'warn');
    this.error = logTo.bind(context, 'error');
  }
  get headers(): Service['headers'] {
    return this.#headers;
  }
  get httpMethod(): string {
    return this.#context.httpMethod;
  }
  get path(): string {
    return this.#context.path;
  }
  get url(): string {
    return this.#context.url;
  }
  get query(): QueryParams {
    return this.#context.query;
  }
  get cookies(): Record<string, string | undefined> {
    return this.#context.cookies;
  }
  /** On the function service the platform's gateway sets the `X-TT-*` headers (trusted unless the build said otherwise). */
  get caller(): Caller | undefined {
    if (this.#caller === null) this.#caller = readCaller(this.#headers);
    return this.#caller;
  }
  get trigger(): Trigger {
    return this.#context.trigger as Trigger;
  }
  get rawBody(): Buffer {
    return (this.#rawBody ??= rawBodyOf(this.#params, this.#context.httpMethod));
  }
  get signal(): AbortSignal {
    return (this.#signal ??= idleSignal());
  }
  get trace(): TraceContext {
    return (this.#trace ??= traceOf(this.#context.headers));
  }
  set(field: string, value: string | number | readonly string[]): this {
    this.#context.set(field, value);
    return this;
  }
  remove(field: string): this {
    this.#context.remove(field);
    return this;
  }
  setCookie(name: string, value: string, options?: CookieOptions): this {
    this.#context.setCookie(name, value, options);
    return this;
  }
  clearCookie(name: string, options?: CookieOptions): this {
    this.#context.clearCookie(name, options);
    return this;
  }
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 599)
      throw new TypeError(`status code must be an integer from 100 to 599, got ${JSON.stringify(code)}`);
    this.#context.status(code);
    return this;
  }
  waitUntil(promise: PromiseLike<unknown>): void {
    this.pending.push(promise);
  }
}

/**
 * Waits for the work given to `waitUntil`: nothing runs after the answer on the function
 * service, so it is done before the function returns. A rejection is logged, not answered.
 */
async function settle(service: FunctionServiceService): Promise<void> {
  for (let i = 0; i < service.pending.length; i++) {
    try {
      await service.pending[i];
    } catch (error) {
      service.error({ waitUntil: 'rejected', error: error instanceof Error ? error.message : String(error) });
    }
  }
}

/**
 * Wraps a cloudfn handler as the function service calls it. An exposed `CloudfnError` (an
 * `HttpError`, a signature refusal) answers its status and the JSON error body of `cloudfn
 * start`; any other error is re-thrown, and the platform answers 500 and logs it.
 * A `config` with `params` or `result` schemas validates as `cloudfn start` does, with the same
 * 400 body; a result that fails is logged and sent (the production behaviour).
 * @example module.exports = functionServiceHandler(handler, 'videos/list', mod.config)
 */
export function functionServiceHandler(
  handler: Handler,
  functionName: string,
  options: FunctionServiceHandlerOptions = {},
  config?: unknown,
): PlatformHandler {
  const trust = options.trustGatewayHeaders !== false;
  const declared = (config ?? {}) as { params?: unknown; result?: unknown };
  const params = isStandardSchema(declared.params) ? declared.params : undefined;
  const result = isStandardSchema(declared.result) ? declared.result : undefined;
  if (params !== undefined || result !== undefined)
    handler = withContract(
      handler,
      { ...(params === undefined ? {} : { params }), ...(result === undefined ? {} : { result }) },
      { file: `functions/${functionName}`, badResult: 'log' },
    );
  return async (params, context) => {
    const service = new FunctionServiceService(context, params, functionName, trust);
    let result: unknown;
    try {
      result = await handler(params, service);
    } catch (error) {
      await settle(service);
      if (!(error instanceof CloudfnError) || !error.expose) throw error;
      // A refusal of params is logged once, with its issues, as `cloudfn start` logs it.
      if (error.issues !== undefined)
        service.warn({ code: error.code, message: error.message, issues: issuesText(error.issues) });
      context.status(error.status);
      context.set('content-type', 'application/json; charset=utf-8');
      context.set(LOGID_HEADER, service.logid);
      // The text, not an object: the same bytes as `cloudfn start` sends.
      return errorBody(error.code, error.message, service.logid, error.issues);
    }
    await settle(service);
    return result;
  };
}
