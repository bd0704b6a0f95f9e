/**
 * The runtime's shared types: what a function author sees (the handler, its params, the
 * service object of docs/platform-contract.md#service, the per-function config) and what the
 * runtime passes between its parts (a function to serve, a function resolved against the
 * options, what an observer learns when a request ends).
 */
import type { RequestInfo } from './shapes.js';
import type { SerializeOptions } from 'cookie';
import type { StandardSchemaV1 } from './contract/standard-schema.js';

/** Per limit, the phrase naming where it was set (`the function's config.maxBodySize (...)`). */
export type LimitSources = Readonly<Partial<Record<keyof Limits, string>>>;

/** A file part of a multipart body (docs/platform-contract.md#params, the UploadFile fields). */
export interface UploadFile {
  /** The file name the client sent. */
  name: string;
  /** The MIME type the client sent for the part (`text/plain` when the part has none, per RFC 7578). */
  type: string;
  /** Size in bytes. */
  size: number;
  /** The whole file content. */
  buffer: Buffer;
}

/** A parsed query string or urlencoded body: repeated keys give arrays. Null prototype. */
export type QueryParams = Record<string, string | string[]>;

/** A parsed multipart body: fields are strings (arrays when repeated), files are `UploadFile`s. */
export type MultipartParams = Record<string, string | string[] | UploadFile>;

/** What a handler receives as params, by request (see docs/handlers.md). */
export type Params = QueryParams | MultipartParams | string | Buffer | unknown;

/**
 * Where a call came from (docs/platform-contract.md#service): the emulated platform, the IDE,
 * the console, or (cloudfn's own value, docs/decisions.md) a timer of `config.schedule`.
 */
export type Trigger = 'online' | 'ide_debug' | 'console_debug' | 'timer';

/** Options of `service.setCookie` and `service.clearCookie`: those of `cookie.serialize`. */
export type CookieOptions = SerializeOptions;

/** The five log methods of the service; they all behave the same (docs/platform-contract.md#logging). */
export type LogMethod = (...values: unknown[]) => void;

/**
 * The request's place in a distributed trace (W3C Trace Context, docs/observability.md): read
 * from the incoming `traceparent`, or a new trace when none came (or it was malformed).
 */
/**
 * The caller of a call from a mini-program, from the gateway's `X-TT-*` headers
 * (docs/platform-projects.md#the-caller). Under `cloudfn start` these headers are read only with
 * `trustGatewayHeaders` on; `cloudfn dev` adds a dev user's.
 */
export interface Caller {
  /** `X-TT-OPENID`: the user, when signed in. */
  readonly openid?: string;
  /** `X-TT-ANONYMOUS-OPENID`: the device, for a user not signed in. */
  readonly anonymousOpenid?: string;
  /** `X-TT-APPID`: the mini-program. */
  readonly appid?: string;
  /** `X-TT-UNIONID`: the user across the developer's apps. */
  readonly unionid?: string;
  /** `X-TT-ENV`: the environment the call was made in. */
  readonly env?: string;
  /** `X-TT-SOURCE`: where the call came from. */
  readonly source?: string;
  /** The client's address: the first entry of `X-Forwarded-For`. */
  readonly ip?: string;
  /** True when there is no `openid` (only an anonymous one). */
  readonly anonymous: boolean;
}

/** A user to act as, for `invoke`, `callContainer` and the dev server: what becomes the `X-TT-*` headers. */
export interface CallerInit {
  openid?: string;
  /** Sent as `X-TT-ANONYMOUS-OPENID`; with `anonymous: true` and none given, `anon-<openid or user>`. */
  anonymousOpenid?: string;
  appid?: string;
  unionid?: string;
  env?: string;
  source?: string;
  /** Sent as `X-Forwarded-For`. */
  ip?: string;
  /** Send as a user not signed in: no `X-TT-OPENID` (nor `X-TT-UNIONID`). @default false */
  anonymous?: boolean;
  /** A live room's id, sent as `X-Room-ID` (a call from a live room's mini-program). */
  roomid?: string;
  /** The live room's anchor, sent as `X-Anchor-OpenID`. */
  anchorOpenid?: string;
  /** The anchor's avatar URL, sent as `X-Avatar-Url`. */
  avatarUrl?: string;
  /** The anchor's nickname, sent percent-encoded as `X-Nick-Name` (a header cannot carry Chinese text). */
  nickname?: string;
}

export interface TraceContext {
  /** 32 lower-case hex digits: the incoming trace's, or a new one. */
  readonly traceId: string;
  /** 16 lower-case hex digits: this request's own span, new per request (the `span_id` of its log lines). */
  readonly spanId: string;
  /** The caller's span (the parent id of the incoming `traceparent`); absent when this request started the trace. */
  readonly parentSpanId?: string;
  /** The sampled flag: passed on from the caller, true for a trace started here, or the SDK's sampler's decision. */
  readonly sampled: boolean;
  /** `00-<traceId>-<spanId>-<flags>`: this request's span as a `traceparent` value. */
  readonly traceparent: string;
  /** The incoming `tracestate`, checked and normalized, when a valid `traceparent` came with one. */
  readonly tracestate?: string;
}

/**
 * The second argument of every handler (docs/platform-contract.md#service), plus
 * cloudfn's own members `logid`, `functionName`, `rawBody`, `signal`, `routeParams`.
 */
export interface Service {
  /** Request headers with lower-case keys. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request method in upper case. */
  readonly httpMethod: string;
  /** The request path without the query string. */
  readonly path: string;
  /** The request path with the query string. */
  readonly url: string;
  /** The query string as an object; the same object as params for GET. */
  readonly query: QueryParams;
  /** Cookies of the request, parsed when first read. */
  readonly cookies: Record<string, string | undefined>;
  /** `online` in start mode, `ide_debug` from `cloudfn dev`, `console_debug` from the console page, `timer` from `config.schedule`. */
  readonly trigger: Trigger;
  /** Sets a response header; throws a TypeError for an invalid name or value. */
  set(field: string, value: string | number | readonly string[]): this;
  /** Removes a response header; no effect when absent. */
  remove(field: string): this;
  /** Adds a Set-Cookie header; options are those of `cookie.serialize`. */
  setCookie(name: string, value: string, options?: CookieOptions): this;
  /** Clears a cookie (an expired Set-Cookie with the same path and domain). */
  clearCookie(name: string, options?: CookieOptions): this;
  /** Sets the response status (an integer from 100 to 599). */
  status(code: number): this;
  log: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  /** cloudfn: the request's log id, also sent as `x-platform-logid`. */
  readonly logid: string;
  /**
   * cloudfn: the caller, from the gateway's `X-TT-*` headers, or undefined when there are none
   * (not a call from a mini-program, or `trustGatewayHeaders` off under `cloudfn start`).
   * @example const openid = service.caller?.openid ?? null
   */
  readonly caller: Caller | undefined;
  /** cloudfn: the function's name, e.g. `videos/list`. */
  readonly functionName: string;
  /** cloudfn: the exact bytes received (empty for GET), for verifying signed callbacks. */
  readonly rawBody: Buffer;
  /** cloudfn: aborted when the function times out or the client disconnects. */
  readonly signal: AbortSignal;
  /** cloudfn: parameters matched by a custom route such as `/videos/:vid`. */
  readonly routeParams: Record<string, string | string[]>;
  /**
   * cloudfn: the request's trace context, built when first read. Pass the service (or this) to
   * the media client or `callContainer` and their calls continue the trace.
   * @example service.info({ upstream: service.trace.parentSpanId ?? 'none' })
   */
  readonly trace: TraceContext;
  /**
   * cloudfn: keeps the process working on `promise` after the response is sent: answer a
   * callback at once (the platform waits 5 s) and finish the work after. Shutdown's drain waits
   * for it (up to its deadline); a rejection is logged under this request's logid.
   * @example
   * service.waitUntil(transcodeAndNotify(event.data.vid))
   * return { received: true }
   */
  waitUntil(promise: PromiseLike<unknown>): void;
}

/** The value a handler returns: the response body. */
export type HandlerResult = unknown;

/**
 * A cloud function: the default export of `functions/<name>.ts`.
 * @example export default async function (params, service) { return { hello: params.name }; }
 */
// biome-ignore lint/suspicious/noExplicitAny: an untyped handler takes whatever params the request carries
export type Handler<P = any, R = HandlerResult> = (params: P, service: Service) => R | Promise<R>;

/** Limits on what a request may carry; each can be set globally and per function. */
export interface Limits {
  /** Largest body in bytes. @default 10485760 (10 MiB) */
  maxBodySize: number;
  /** Largest file part of a multipart body, in bytes. @default 10485760 */
  maxFileSize: number;
  /** Most file parts in a multipart body. @default 10 */
  maxFiles: number;
  /** Most non-file fields in a multipart body. @default 100 */
  maxFields: number;
  /** Most parts (files and fields) in a multipart body. @default 110 */
  maxParts: number;
  /** Largest non-file field value in a multipart body, in bytes. @default 1048576 (1 MiB) */
  maxFieldSize: number;
  /** Most header pairs in one multipart part. @default 2000 */
  maxPartHeaderPairs: number;
  /**
   * Most parameters (`key=value` pairs) in a query string or an urlencoded body; more is 413
   * `CLOUDFN_TOO_MANY_PARAMS`, and parsing stops there. @default 1000 (as body-parser)
   */
  maxParams: number;
}

/**
 * Per-function options: `export const config = { timeout: 5000 }` beside the handler.
 * Everything not given falls back to the global options.
 */
export interface FunctionConfig extends Partial<Limits> {
  /** Time a call may take, in milliseconds (the platform's example uses 60000). @default 60000 */
  timeout?: number;
  /**
   * A cron expression (5 fields, or 6 with seconds first) on which `cloudfn dev` and `cloudfn
   * start` call the function with `trigger: 'timer'` (docs/observability.md#timer-triggers), or
   * `{ cron, params }`: the firing's JSON body is then exactly `params`, as the platform's timer
   * trigger sends its configured params (the string form sends `{}`).
   * @example '0 0 * * * *' // every hour on the hour
   * @example { cron: '0 0 3 * * *', params: { job: 'cleanup' } }
   * @default undefined (no timer)
   */
  schedule?: string | ScheduleSpec;
  /**
   * Whether `cloudfn client` offers the function to the mini-program: `false` leaves it out,
   * `true` keeps a function it would leave out (a timer, a callback), `'inner-call'` says only
   * the app's other services call it, over the inner-call host, so it is left out too
   * (docs/contracts.md, docs/client.md).
   * @default undefined (offered unless the platform calls it)
   */
  client?: boolean | 'inner-call';
  /**
   * The params' schema, any Standard Schema v1 validator (zod, valibot, arktype): params are
   * validated before the handler, which gets the schema's output; invalid params are answered
   * 400 `CLOUDFN_BAD_PARAMS` with one issue per problem (docs/contracts.md).
   * @example params: z.object({ name: z.string().min(1) })
   * @default undefined (params are passed as parsed)
   */
  params?: StandardSchemaV1;
  /**
   * The result's schema: the handler's value is checked after it returns (docs/contracts.md
   * says what a failure does in dev and in production), and typed for the generated client.
   * @default undefined (not checked)
   */
  result?: StandardSchemaV1;
}

/** A timer with params: `config.schedule = { cron, params }`. */
export interface ScheduleSpec {
  /** The cron expression. */
  cron: string;
  /** The JSON body of every firing, sent as it is. @default {} */
  params?: unknown;
}

/** A function to serve: its name (`videos/list`), handler and optional per-function config. */
export interface FunctionSpec {
  name: string;
  handler: Handler;
  config?: FunctionConfig;
  /** The source file, for messages. @default the name */
  file?: string;
}

/** A function ready to serve: its handler and its options resolved against the global ones. */
export interface LoadedFunction {
  /** The name, from the path under functions/ (`videos/list`). */
  name: string;
  /** The source file, for messages. */
  file: string;
  handler: Handler;
  config: FunctionConfig;
  /** Global limits overridden by the function's config. */
  limits: Limits;
  /**
   * Where each limit was set, in words, for the 413 messages: the function's config or the
   * global option and its source. @default undefined (messages name the limit alone)
   */
  limitSources?: LimitSources;
  /** Milliseconds before the call is answered 504. */
  timeout: number;
}

/** A request's summary lives with the other shapes the console page reads. */
export type { RequestInfo };
