/**
 * One HTTP exchange with the platform: sign the exact bytes, send them with a timeout and the
 * caller's signal, verify a 2xx response, parse the envelope. Retries and token refresh are
 * decided by the caller (call.ts), which knows the operation.
 */
import { defaultHeaderProfile, signRequest, verifyResponse, type KeyInput } from '../sign/index.js';
import { platformKeysOf } from '../sign/platform-keys.js';
import { createAbortController } from '../fetch-fallback/index.js';
import { createMediaError, type MediaError } from './errors.js';
import { logIdOf } from './normalize.js';
import type { MediaLogger, ResolvedMediaOptions } from './options.js';
import { retryAfterSeconds } from './retry-after.js';

/** A response as received, with its body parsed when it is JSON. */
export interface RawResponse {
  status: number;
  headers: Headers;
  /** The body text as received. */
  text: string;
  /** The parsed body; undefined when the body is empty or not JSON. */
  json: unknown;
  /** `log_id` of the body, or the `x-platform-logid` header. */
  logId: string | undefined;
  /** Seconds the platform asked to wait (`Retry-After`, seconds or an HTTP date), when given. */
  retryAfterSeconds: number | undefined;
}

/** A failed exchange, with what a retry decision needs. */
export class ExchangeError extends Error {
  readonly error: MediaError;
  /** False only when the connection was never made, so the platform cannot have seen the request. */
  readonly mayHaveReached: boolean;
  /** True for timeouts and network failures (retryable for safe operations). */
  readonly transient: boolean;
  constructor(error: MediaError, mayHaveReached: boolean, transient: boolean) {
    super(error.message);
    this.error = error;
    this.mayHaveReached = mayHaveReached;
    this.transient = transient;
  }
}

/** Error codes of a connection that failed before any byte was sent. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What one exchange sends. */
export interface ExchangeRequest {
  /** The operation (or `client_token`) for messages and logs. */
  label: string;
  url: string;
  /** The JSON text to sign and send. */
  json: string;
  accessToken: string | undefined;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  logger: MediaLogger | undefined;
  /** The mini-program acted for: the signed appid, and whose platform key verifies the answer. */
  appid: string | undefined;
  /** W3C `traceparent` of this attempt's span (outgoing.ts), when the call continues a trace. */
  traceparent?: string | undefined;
  /** The parent's `tracestate`, passed on. */
  tracestate?: string | undefined;
  /** The calling request's logid, sent as `x-platform-logid`. */
  logid?: string | undefined;
  /** Awaited after signing, right before sending (the rate limit's slot); its rejection passes through. */
  ready?: (() => Promise<void>) | undefined;
}

/**
 * Sends one signed POST and returns the response; throws an `ExchangeError` for timeouts,
 * aborts, network failures, forged or unparsable 2xx responses.
 * @example const res = await exchange(options, { label: 'get_video_list', url, json, accessToken, signal, timeoutMs: 10000 })
 */
export async function exchange(options: ResolvedMediaOptions, request: ExchangeRequest): Promise<RawResponse> {
  const { label, url, signal, timeoutMs } = request;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (request.accessToken !== undefined) headers['access-token'] = request.accessToken;
  if (request.traceparent !== undefined) headers.traceparent = request.traceparent;
  if (request.tracestate !== undefined) headers.tracestate = request.tracestate;
  if (request.logid !== undefined) headers[defaultHeaderProfile.logid] = request.logid;
  let body: string = request.json;
  if (options.signing !== undefined && request.appid !== undefined) {
    const parsed = new URL(url);
    const { privateKey, keyVersion } = options.signing;
    const signed = signRequest({
      privateKey,
      keyVersion,
      appid: request.appid,
      method: 'POST',
      url: parsed.pathname + parsed.search,
      body: request.json,
    });
    headers[defaultHeaderProfile.authorization] = signed.authorization;
    // Send exactly the text that was signed (platform contract, Signing: no re-serialization).
    // Text in gives text out.
    body = typeof signed.body === 'string' ? signed.body : request.json;
  }

  if (request.ready !== undefined) await request.ready();
  if (signal?.aborted) throw aborted(label, signal, false);
  const controller = createAbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let response: Response;
  let bytes: Buffer;
  let sent = false;
  try {
    response = await options.fetch(url, { method: 'POST', headers, body, signal: controller.signal });
    sent = true;
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    if (timedOut)
      throw new ExchangeError(
        createMediaError('MEDIA_TIMEOUT', { operation: label, cause: error }, label, timeoutMs),
        true,
        true,
      );
    if (signal?.aborted) throw aborted(label, signal, true);
    const code = causeCode(error);
    const detail = code ?? ((error as Error).message || String(error));
    const reached = sent || code === undefined || !NOT_CONNECTED.has(code);
    throw new ExchangeError(
      createMediaError('MEDIA_NETWORK', { operation: label, cause: error }, label, url, detail),
      reached,
      true,
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }

  const status = response.status;
  const ok = status >= 200 && status <= 299;
  if (ok && options.platformPublicKey !== undefined)
    verify(options, request, response, bytes, options.platformPublicKey);
  // The client-token answer is the provider's, of no mini-program: with keys by appid and no default appid it has no key.
  else if (ok && options.platformKeys !== undefined && request.appid !== undefined)
    verify(options, request, response, bytes, await keysOf(options, request));
  const text = bytes.toString('utf8');
  let json: unknown;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch (error) {
      if (ok)
        throw new ExchangeError(
          createMediaError(
            'MEDIA_BAD_RESPONSE',
            { operation: label, cause: error },
            label,
            status,
            `the body is not JSON (${JSON.stringify(text.slice(0, 80))})`,
          ),
          true,
          false,
        );
    }
  }
  return {
    status,
    headers: response.headers,
    text,
    json,
    logId: logIdOf(json) ?? response.headers.get(defaultHeaderProfile.logid) ?? undefined,
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after'), options.clock.now()),
  };
}

/** The platform keys of the mini-program called for; a missing key is a set-up error, not a forgery. */
async function keysOf(options: ResolvedMediaOptions, { label, appid }: ExchangeRequest): Promise<KeyInput[]> {
  try {
    return await platformKeysOf(options.platformKeys!, appid!);
  } catch (error) {
    throw new ExchangeError(
      createMediaError('MEDIA_OPTIONS', { operation: label, cause: error }, 'platformKeys', (error as Error).message),
      true,
      false,
    );
  }
}

/** A 2xx must carry a valid platform signature (platform contract, Signing). */
function verify(
  options: ResolvedMediaOptions,
  { label, logger }: ExchangeRequest,
  response: Response,
  bytes: Buffer,
  publicKey: KeyInput | readonly KeyInput[],
): void {
  let detail: string | undefined;
  let cause: unknown;
  try {
    const result = verifyResponse({
      status: response.status,
      headers: response.headers,
      body: bytes,
      publicKey,
      maxAgeSeconds: options.responseMaxAgeSeconds,
    });
    if (!result.signed) detail = 'carries no Platform-Signature';
  } catch (error) {
    cause = error;
    const code = (error as { code?: unknown }).code;
    detail =
      code === 'SIGN_UNSIGNED_RESPONSE'
        ? 'carries no Platform-Signature'
        : `fails verification (${(error as Error).message})`;
  }
  if (detail === undefined) return;
  const logId = response.headers.get(defaultHeaderProfile.logid);
  logger?.error({ media: label, status: response.status, forged: detail, log_id: logId ?? undefined });
  throw new ExchangeError(
    createMediaError('MEDIA_FORGED_RESPONSE', { operation: label, cause }, label, response.status, detail),
    true,
    false,
  );
}

function aborted(label: string, signal: AbortSignal, reached: boolean): ExchangeError {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
  return new ExchangeError(
    createMediaError('MEDIA_ABORTED', { operation: label, cause: signal.reason }, label, reason),
    reached,
    false,
  );
}
