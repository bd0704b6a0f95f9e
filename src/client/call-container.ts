/**
 * `callContainer`: the client call of docs/platform-contract.md#runtime-interface, `{ path,
 * init: { method, header, body, timeout }, success, fail, complete }`, sent with fetch to a
 * base URL (a dev server, `cloudfn start`, a bundle), so the code of a mini-program page that
 * calls functions can be tested in Node.
 */
import { checkTraceOption, startOutgoing, type TraceParentSource } from '../../runtime/trace/outgoing.js';
import type { CallerInit, Trigger } from '../../runtime/types.js';
import { callerHeaders } from '../../runtime/request/caller.js';
import { ContainerCallError, createClientError, type ContainerFailure } from './errors.js';
import { encodeCall } from './encode.js';
import { availableFetch, createAbortController } from '../fetch-fallback/index.js';

/**
 * The header the dev server trusts to set `service.trigger` (`DEV_TRIGGER_HEADER` of
 * `cloudfn dev`). A call says `online`, as a client's container call does on the platform.
 */
export const TRIGGER_HEADER = 'x-cloudfn-trigger';

/** `init` of a call (platform contract, Runtime interface). */
export interface ContainerCallInit {
  /** @default 'GET' */
  method?: string;
  /** Request headers. */
  header?: Record<string, string>;
  /** An object (JSON, or a form with an urlencoded Content-Type; the query on GET), a string (text) or bytes (binary). */
  body?: unknown;
  /** Milliseconds before the call fails with a timeout. @default the client's timeout, 60000 */
  timeout?: number;
}

/** What `success` receives. */
export interface ContainerResponse<T = unknown> {
  statusCode: number;
  /** Response headers, lower-case names. */
  header: Record<string, string>;
  /** JSON parsed, text as a string, anything else as an ArrayBuffer; '' when empty. */
  data: T;
  /** The Set-Cookie headers. */
  cookies: string[];
}

/**
 * The request a call is made for: a function's `service` fits. Its trace goes on in the call,
 * its logid is sent, and the call is logged through it.
 */
export interface CallingRequest {
  /** The trace the call continues: it sends a `traceparent` for a new child span (`service.trace`). */
  readonly trace?: TraceParentSource;
  /** Sent as `x-platform-logid`: a cloudfn function called takes it as its own logid. */
  readonly logid?: string;
  /** Where one line per call goes: `{ call, status, log_id, trace_id, client_span_id, ms }`. */
  info?(...values: unknown[]): void;
  /** Where a failed call's line goes. */
  warn?(...values: unknown[]): void;
}

/** A call with callbacks; without any callback the call returns a promise instead. */
export interface ContainerCallOptions<T = unknown> {
  /** The function's path, with an optional query string: `/hello?name=Ada`. */
  path: string;
  init?: ContainerCallInit;
  /**
   * cloudfn: the request this call is made for (a function calling another passes its
   * `service`): the call carries its trace and logid (`init.header` wins over both) and is
   * logged through it with the answer's `x-platform-logid` as `log_id`.
   */
  from?: CallingRequest;
  /**
   * cloudfn: call as this user, as a mini-program would through the platform's gateway: its
   * `X-TT-*` headers are sent (`init.header` wins). Wins over the client's `user`; `null` sends
   * none. A server trusts them under `cloudfn dev`, and under `cloudfn start` only with
   * `trustGatewayHeaders` on (docs/platform-projects.md#the-caller).
   * @default the client's user, else none
   */
  user?: CallerInit | null;
  /** Called with the response, whatever its status (a 500 is a response, not a failure). */
  success?: (response: ContainerResponse<T>) => void;
  /** Called when no response came: bad options, timeout, network error. */
  fail?: (failure: ContainerFailure) => void;
  /** Called last, either way. */
  complete?: (result: ContainerResponse<T> | ContainerFailure) => void;
}

/** Options of `createContainerClient`. */
export interface ContainerClientOptions {
  /** Where functions are served: `http://127.0.0.1:8000` (a path prefix is kept). */
  baseUrl: string;
  /** Headers sent with every call (a call's `init.header` wins). */
  header?: Record<string, string>;
  /** @default 60000 (the example in the platform contract, Runtime interface) */
  timeout?: number;
  /** The trigger asked of the server; false sends no trigger header. @default 'online' */
  trigger?: Trigger | false;
  /** @default globalThis.fetch, or a node:https one where there is none (Node 14) */
  fetch?: typeof globalThis.fetch;
  /** The user every call is made as (`X-TT-*` headers); a call's `user` wins. @default none */
  user?: CallerInit;
}

/** A client bound to one base URL. */
export interface ContainerClient {
  callContainer<T = unknown>(
    options: ContainerCallOptions<T> & { success: NonNullable<ContainerCallOptions<T>['success']> },
  ): void;
  callContainer<T = unknown>(
    options: ContainerCallOptions<T> & { fail: NonNullable<ContainerCallOptions<T>['fail']> },
  ): void;
  callContainer<T = unknown>(
    options: ContainerCallOptions<T> & { complete: NonNullable<ContainerCallOptions<T>['complete']> },
  ): void;
  callContainer<T = unknown>(options: ContainerCallOptions<T>): Promise<ContainerResponse<T>>;
}

/** The header carrying a request's logid, both ways (`x-platform-logid`). */
const LOGID_HEADER = 'x-platform-logid';
/** What a logid may be (as the runtime accepts one): 1 to 128 of letters, digits and `._:-`. */
const SAFE_LOGID = /^[\w.:-]{1,128}$/;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

function decode(type: string, bytes: ArrayBuffer): unknown {
  if (bytes.byteLength === 0) return '';
  if (JSON_TYPE.test(type)) {
    const text = new TextDecoder().decode(bytes);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  if (type.startsWith('text/') || /(?:xml|javascript)\b/i.test(type)) return new TextDecoder().decode(bytes);
  return bytes;
}

function checkBaseUrl(baseUrl: unknown): string {
  let url: URL | undefined;
  try {
    url = new URL(String(baseUrl));
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new TypeError(
      `baseUrl must be an absolute http(s) URL such as http://127.0.0.1:8000, got ${JSON.stringify(baseUrl)}`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

async function send(
  client: Required<Omit<ContainerClientOptions, 'header' | 'trigger' | 'user'>> & ContainerClientOptions,
  options: ContainerCallOptions,
): Promise<ContainerResponse> {
  if (typeof options !== 'object' || options === null)
    throw createClientError(
      'CLIENT_BAD_OPTIONS',
      `callContainer takes an object { path, init }, got ${options === null ? 'null' : typeof options}`,
    );
  const init = options.init ?? {};
  const timeout = init.timeout ?? client.timeout;
  if (!Number.isInteger(timeout) || timeout <= 0)
    throw createClientError(
      'CLIENT_BAD_OPTIONS',
      `init.timeout must be a positive whole number of milliseconds, got ${JSON.stringify(init.timeout)}`,
    );
  const defaults: Record<string, string> = {
    ...(client.trigger === false ? {} : { [TRIGGER_HEADER]: client.trigger ?? 'online' }),
    ...client.header,
  };
  const user = options.user === undefined ? client.user : options.user;
  if (user !== undefined && user !== null) {
    try {
      Object.assign(defaults, callerHeaders(user));
    } catch (error) {
      throw createClientError('CLIENT_BAD_OPTIONS', (error as Error).message);
    }
  }
  const from = options.from;
  let parent: TraceParentSource | undefined;
  try {
    parent = checkTraceOption(from?.trace, 'from.trace');
  } catch (error) {
    throw createClientError('CLIENT_BAD_OPTIONS', (error as Error).message);
  }
  const logid = from?.logid;
  if (logid !== undefined && (typeof logid !== 'string' || !SAFE_LOGID.test(logid)))
    throw createClientError(
      'CLIENT_BAD_OPTIONS',
      `from.logid must be 1 to 128 letters, digits and ._:- (a request's logid), got ${JSON.stringify(logid)}`,
    );
  const call = await encodeCall(client.baseUrl, options.path, init, defaults);
  const outgoing = await startOutgoing(parent, { method: call.method, url: call.url, name: call.method });
  // The caller's own headers win: a traceparent or logid set in init.header is sent as given.
  if (outgoing !== undefined && !call.headers.has('traceparent')) {
    call.headers.set('traceparent', outgoing.traceparent);
    if (outgoing.tracestate !== undefined && !call.headers.has('tracestate'))
      call.headers.set('tracestate', outgoing.tracestate);
  }
  if (logid !== undefined && !call.headers.has(LOGID_HEADER)) call.headers.set(LOGID_HEADER, logid);
  const trace = outgoing === undefined ? {} : { trace_id: outgoing.traceId, client_span_id: outgoing.spanId };
  const started = Date.now();
  // A timeout is an AbortController, not a race: the request is really cancelled.
  const controller = createAbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  try {
    const response = await client.fetch(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body as RequestInit['body'],
      signal: controller.signal,
    });
    const bytes = await response.arrayBuffer();
    const header: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      header[name] = value;
    });
    // Headers iterates each Set-Cookie on its own, so the loop above kept only the last; the
    // header holds them all, joined as Headers.get joins them, and `cookies` one by one.
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) header['set-cookie'] = cookies.join(', ');
    outgoing?.end(response.status);
    from?.info?.({
      call: options.path,
      status: response.status,
      log_id: header[LOGID_HEADER],
      ...trace,
      ms: Date.now() - started,
    });
    return {
      statusCode: response.status,
      header,
      data: decode(header['content-type'] ?? '', bytes),
      cookies,
    };
  } catch (error) {
    const failure = controller.signal.aborted
      ? createClientError('CLIENT_TIMEOUT', timeout, call.url)
      : createClientError(
          'CLIENT_NETWORK',
          call.url,
          (error as { cause?: { code?: string; message?: string } }).cause?.code ??
            (error as { cause?: { message?: string } }).cause?.message ??
            (error as Error).message,
        );
    outgoing?.end(undefined, failure.code);
    from?.warn?.({ call: options.path, error: failure.errMsg, ...trace, ms: Date.now() - started });
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a call's callbacks in order, `complete` last even when the one before it throws (a
 * mini-program runs complete whatever success does). An error a callback throws is not
 * swallowed: it is thrown again once complete has run, so it surfaces as an unhandled rejection
 * (a failed `expect` inside `success` fails the test) and never reaches `fail`.
 */
export function runCallbacks<R>(
  first: ((result: R) => void) | undefined,
  complete: ((result: R) => void) | undefined,
  result: R,
): void {
  let thrown: { error: unknown } | undefined;
  try {
    first?.(result);
  } catch (error) {
    thrown = { error };
  }
  try {
    complete?.(result);
  } catch (error) {
    thrown ??= { error };
  }
  if (thrown !== undefined) throw thrown.error;
}

/**
 * The promise of a call, or, when the call has a callback, its callbacks: success then complete,
 * or fail then complete.
 */
function deliver(
  call: ContainerCallOptions,
  promise: Promise<ContainerResponse>,
): Promise<ContainerResponse> | undefined {
  if (call?.success === undefined && call?.fail === undefined && call?.complete === undefined) return promise;
  promise.then(
    (response) => runCallbacks(call.success, call.complete, response),
    (error: unknown) => runCallbacks(call.fail, call.complete, failureOf(error)),
  );
  return undefined;
}

function failureOf(error: unknown): ContainerFailure {
  if (error instanceof ContainerCallError) return { errMsg: error.errMsg, code: error.code };
  return { errMsg: `callContainer:fail ${(error as Error).message ?? String(error)}`, code: 'CLIENT_NETWORK' };
}

/**
 * Creates a client whose `callContainer` calls functions served at `baseUrl`.
 * @example
 * const { callContainer } = createContainerClient({ baseUrl: dev.url });
 * const res = await callContainer({ path: '/hello', init: { method: 'POST', body: { name: 'Ada' } } });
 * res.statusCode; res.data; // 200, { hello: 'Ada', trigger: 'online', ... }
 * @example
 * callContainer({ path: '/hello?name=Ada', success: (res) => show(res.data), fail: (err) => toast(err.errMsg) });
 */
export function createContainerClient(options: ContainerClientOptions): ContainerClient {
  const client = {
    ...options,
    baseUrl: checkBaseUrl(options.baseUrl),
    timeout: options.timeout ?? 60_000,
    fetch: options.fetch ?? availableFetch(),
  };
  function callContainer(call: ContainerCallOptions): Promise<ContainerResponse> | undefined {
    return deliver(call, send(client, call));
  }
  return { callContainer } as ContainerClient;
}

/**
 * `callContainer` without a client: the base URL is read from `CLOUDFN_BASE_URL` at each call,
 * so a test can set it once (e.g. to a dev server's url) and the page code under test calls
 * `callContainer` as it would on the platform.
 * @example
 * process.env.CLOUDFN_BASE_URL = dev.url;
 * const res = await callContainer({ path: '/hello?name=Ada' });
 */
export const callContainer: ContainerClient['callContainer'] = ((options: ContainerCallOptions) => {
  const baseUrl = process.env.CLOUDFN_BASE_URL;
  let client: ContainerClient;
  try {
    if (baseUrl === undefined || baseUrl === '') {
      throw new Error(
        'callContainer needs a base URL: set CLOUDFN_BASE_URL (e.g. http://127.0.0.1:8000) or use createContainerClient({ baseUrl })',
      );
    }
    client = createContainerClient({ baseUrl });
  } catch (error) {
    // As every other bad option: fail and complete (or a rejected promise), never a throw.
    const failure = createClientError('CLIENT_BAD_OPTIONS', (error as Error).message);
    return deliver(options, Promise.reject(failure));
  }
  return client.callContainer(options);
}) as ContainerClient['callContainer'];
