/**
 * One signed attempt of a media call: its span, the signed exchange (transport.ts), and the
 * answer classified: the envelope of a success, or the error the call would end with and what
 * the retry policy (retry-policy.ts) needs to know of the failure.
 */
import { startOutgoing, type OutgoingTrace, type TraceParentSource } from '../../runtime/trace/outgoing.js';
import { createMediaError, MediaApiError, type MediaError } from './errors.js';
import { errNoOf } from './normalize.js';
import type { MediaLogger, ResolvedMediaOptions } from './options.js';
import type { AttemptFailure } from './retry-policy.js';
import { exchange, ExchangeError, type RawResponse } from './transport.js';
import { API_PREFIX, type Operation } from './types.js';

type Obj = Record<string, unknown>;

/** What one attempt sends, and for whom. */
export interface AttemptRequest {
  operation: Operation;
  url: string;
  /** The JSON text to sign and send. */
  json: string;
  accessToken: string;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  logger: MediaLogger | undefined;
  appid: string | undefined;
  logid: string | undefined;
  /** The trace the call continues. */
  parent: TraceParentSource | undefined;
  /** Retries made before this attempt (0 for the first). */
  retry: number;
  /** Awaited once the request is signed, right before it is sent: the rate limit's slot. */
  ready?: (() => Promise<void>) | undefined;
}

/** How one attempt ended. */
export type AttemptResult =
  | { ok: true; envelope: Obj; response: RawResponse; outgoing: OutgoingTrace | undefined }
  | {
      ok: false;
      failure: AttemptFailure;
      /** The error the call ends with if it is not tried again. */
      error: MediaError;
      /** The answer, when there was one. */
      response: RawResponse | undefined;
      errNo: number | undefined;
      outgoing: OutgoingTrace | undefined;
    };

/**
 * Sends `request` once, in a span of its own (a resend is another HTTP request, with its own
 * parent id downstream). Rejects only with what is not an exchange failure (a bug, say).
 * @example const result = await signedAttempt(options, { operation: 'get_video_list', url, json, accessToken, ... })
 */
export async function signedAttempt(options: ResolvedMediaOptions, request: AttemptRequest): Promise<AttemptResult> {
  const { operation, retry } = request;
  const outgoing = await startOutgoing(request.parent, {
    method: 'POST',
    url: request.url,
    name: `POST ${API_PREFIX}${operation}`,
    attributes:
      retry === 0
        ? { 'cloudfn.media.operation': operation }
        : { 'cloudfn.media.operation': operation, 'http.request.resend_count': retry },
  });
  let response: RawResponse;
  try {
    response = await exchange(options, {
      label: operation,
      url: request.url,
      json: request.json,
      accessToken: request.accessToken,
      signal: request.signal,
      timeoutMs: request.timeoutMs,
      logger: request.logger,
      appid: request.appid,
      traceparent: outgoing?.traceparent,
      tracestate: outgoing?.tracestate,
      logid: request.logid,
      ready: request.ready,
    });
  } catch (error) {
    if (!(error instanceof ExchangeError)) {
      outgoing?.end(undefined, 'Error');
      throw error;
    }
    outgoing?.end(undefined, error.error.code);
    const failure: AttemptFailure = {
      kind: 'exchange',
      transient: error.transient,
      mayHaveReached: error.mayHaveReached,
    };
    return { ok: false, failure, error: error.error, response: undefined, errNo: undefined, outgoing };
  }
  const envelope =
    typeof response.json === 'object' && response.json !== null && !Array.isArray(response.json)
      ? (response.json as Obj)
      : undefined;
  const errNo = envelope === undefined ? undefined : errNoOf(envelope);
  const ok = response.status >= 200 && response.status <= 299;
  // A 200 whose err_no is not 0 is a failure too: error.type names the err_no.
  outgoing?.end(response.status, ok && errNo !== undefined && errNo !== 0 ? `err_no ${errNo}` : undefined);
  if (ok && envelope !== undefined && (errNo === undefined || errNo === 0))
    return { ok: true, envelope, response, outgoing };
  if (ok && envelope === undefined) {
    const error = createMediaError(
      'MEDIA_BAD_RESPONSE',
      { operation },
      operation,
      response.status,
      'the body is not a JSON object',
    );
    return { ok: false, failure: { kind: 'malformed' }, error, response, errNo, outgoing };
  }
  const error = new MediaApiError({
    operation,
    status: response.status,
    errNo,
    errMsg: envelope?.err_msg === undefined || envelope.err_msg === null ? '' : String(envelope.err_msg),
    logId: response.logId,
    body: response.json,
  });
  // A 401 naming another err_no (a refused signature, say) is not cured by a new token.
  const tokenError = errNo !== undefined && errNo !== 0 ? options.tokenErrorCodes.has(errNo) : response.status === 401;
  return {
    ok: false,
    failure: { kind: 'refused', status: response.status, tokenError },
    error,
    response,
    errNo,
    outgoing,
  };
}
