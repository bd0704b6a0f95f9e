/**
 * One operation, start to end: validate, wait for the rate limiter, attach the token, send,
 * then decide: return the normalized body, refresh the token once, retry with back-off, or
 * throw a precise error.
 */
import {
  checkTraceOption,
  requestContextOf,
  startOutgoing,
  type OutgoingTrace,
  type TraceParentSource,
} from '../../runtime/trace/outgoing.js';
import type { FleetWarn } from '../fleet/connect.js';
import type { RedisRateLimiter } from '../fleet/rate-limiter.js';
import { createMediaError, MediaApiError, MediaError, MediaValidationError } from './errors.js';
import { errNoOf, normalizeResponse } from './normalize.js';
import type { MediaLogger, ResolvedMediaOptions } from './options.js';
import { TokenBucket } from './rate-limit.js';
import { TokenManager } from './token.js';
import type { JsonPost } from './token.js';
import { exchange, ExchangeError } from './transport.js';
import type { RawResponse } from './transport.js';
import { API_PREFIX } from './types.js';
import type { Operation, RequestOf, ResponseOf } from './types.js';
import { validateRequest } from './validate.js';

/** Per-call options of every method. */
export interface CallOptions {
  /** Aborts the call (and its waits); the method rejects with MEDIA_ABORTED. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
  /**
   * Overrides the client's `logger` for this call. Given the request's `service`, its lines
   * carry the request's logid and trace ids, and the call continues its trace (see `trace`).
   */
  logger?: MediaLogger;
  /**
   * The trace the call continues: each attempt sends a `traceparent` naming a new child span of
   * it (with an OpenTelemetry SDK registered, a client span) and the parent's `tracestate`.
   * @default the logger's `trace` when the logger is a request's `service`; else no traceparent
   */
  trace?: TraceParentSource;
  /**
   * Sent as `x-platform-logid`, so the platform's records can be matched with the request's.
   * @default the logger's `logid` when the logger is a request's `service`
   */
  logid?: string;
  /**
   * The mini-program this call acts for: it is signed with this appid and its response is
   * verified with this appid's platform key. @default the client's `signing.appid`
   */
  appid?: string;
}

/** Operations whose rate limit counts per mini-program (docs/platform-contract.md, media limits: start_work_flow is 20 per second per mini-program); the others count per provider. */
const PER_APP_LIMIT: ReadonlySet<Operation> = new Set(['start_work_flow']);

/**
 * Operations that change something. Once such a request may have reached the platform it is
 * never sent again: a second delete, upload or transcode could act twice.
 */
const UNSAFE: ReadonlySet<Operation> = new Set(['delete_video', 'upload_video_by_urls', 'start_work_flow']);

/** Operations whose body takes the client's `envId` when it has none. */
const NEEDS_ENV_ID: ReadonlySet<Operation> = new Set([
  'delete_video',
  'describe_vod_played_top_data',
  'describe_vod_played_static_data',
]);

type Obj = Record<string, unknown>;

/** What a logid sent as `x-platform-logid` may be (as the runtime accepts one). */
const SAFE_LOGID = /^[\w.:-]{1,128}$/;

/** A promise awaited later: a rejection before then is not an unhandled one (it reaches the awaiter). */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The engine behind the client's methods. */
export class MediaCaller {
  readonly options: ResolvedMediaOptions;
  readonly tokens: TokenManager;
  /** Token buckets by operation, or by operation and appid for per-mini-program limits; made on first use. */
  private readonly buckets = new Map<string, TokenBucket>();
  /** The fleet's shared limiter when a Redis setting is given; the buckets are its fallback. */
  private readonly limiter: Promise<RedisRateLimiter> | undefined;

  constructor(options: ResolvedMediaOptions) {
    this.options = options;
    const redis = options.redis;
    const logger = options.logger;
    // Without a logger the stores warn as JSON lines on stdout.
    const stores: { warn?: FleetWarn } =
      logger === undefined ? {} : { warn: (message) => logger.warn(`cloudfn: ${message}`) };
    // The Redis stores are imported only when Redis is set: a bundle of a function without it
    // carries them as chunks it never reads (src/build/bundle.ts).
    this.limiter =
      redis === undefined
        ? undefined
        : handled(import('../fleet/rate-limiter.js').then((m) => new m.RedisRateLimiter(redis, stores)));
    this.tokens = new TokenManager(options.token, options.clock, options.tokenRefreshMarginMs, this.post, {
      shared:
        redis === undefined
          ? undefined
          : handled(import('../fleet/token-store.js').then((m) => new m.RedisTokenStore(redis, stores))),
    });
  }

  /**
   * Waits for a slot of `operation`'s limit: the fleet's shared one when Redis answers, else
   * (no setting, or Redis failing, warned once by the limiter) this process's bucket.
   */
  private async slot(operation: Operation, appid: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    const rate = this.options.rateLimits.get(operation);
    if (rate === undefined) return;
    // Aborted while the token was awaited: take no slot, send nothing.
    if (signal?.aborted) throw signal.reason;
    if (this.limiter !== undefined) {
      const key = PER_APP_LIMIT.has(operation) && appid !== undefined ? `${operation}:${appid}` : operation;
      const wait = await (await this.limiter).reserve(key, rate);
      if (wait !== undefined) {
        if (wait > 0) await this.options.clock.sleep(wait, signal);
        return;
      }
    }
    await this.bucket(operation, appid)?.take(signal);
  }

  /** The bucket a call of `operation` for `appid` waits on, or undefined when it has no limit. */
  private bucket(operation: Operation, appid: string | undefined): TokenBucket | undefined {
    const rate = this.options.rateLimits.get(operation);
    if (rate === undefined) return undefined;
    const key = PER_APP_LIMIT.has(operation) && appid !== undefined ? `${operation}\n${appid}` : operation;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket(rate, this.options.clock);
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Calls `operation` and resolves with its normalized response body. */
  async call<O extends Operation>(
    operation: O,
    request: RequestOf<O>,
    callOptions: CallOptions = {},
  ): Promise<ResponseOf<O>> {
    const { options } = this;
    let body = request as unknown as Obj;
    if (
      NEEDS_ENV_ID.has(operation) &&
      options.envId !== undefined &&
      typeof body === 'object' &&
      body !== null &&
      body.env_id === undefined
    ) {
      body = { ...body, env_id: options.envId };
    }
    const issue = validateRequest(operation, body, { now: options.clock.now() });
    if (issue !== undefined) throw new MediaValidationError(operation, issue);
    const appid = callOptions.appid ?? options.signing?.appid;
    if (appid === undefined && (options.signing !== undefined || options.platformKeys !== undefined)) {
      throw createMediaError(
        'MEDIA_OPTIONS',
        { operation },
        'appid',
        `${operation} needs the appid of the mini-program it acts for: media.forApp('wx...'), { appid } in the call's options, or signing.appid (CLOUDFN_MEDIA_APPID) for one mini-program`,
      );
    }
    if (appid !== undefined && (typeof appid !== 'string' || appid === ''))
      throw createMediaError(
        'MEDIA_OPTIONS',
        { operation },
        'appid',
        `must be a mini-program's appid, got ${JSON.stringify(appid)}`,
      );

    const json = JSON.stringify(body);
    const url = options.baseUrl + API_PREFIX + operation;
    const signal = callOptions.signal;
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs;
    const safe = !UNSAFE.has(operation);
    const started = options.clock.now();
    const logger = callOptions.logger ?? options.logger;
    const caller = requestContextOf(logger);
    let parent: TraceParentSource | undefined;
    try {
      parent = checkTraceOption(callOptions.trace, 'trace') ?? caller.trace;
    } catch (error) {
      throw createMediaError('MEDIA_OPTIONS', { operation }, 'trace', (error as Error).message);
    }
    const logid = callOptions.logid ?? caller.logid;
    if (logid !== undefined && (typeof logid !== 'string' || !SAFE_LOGID.test(logid)))
      throw createMediaError(
        'MEDIA_OPTIONS',
        { operation },
        'logid',
        `must be 1 to 128 letters, digits and ._:- (a request's logid), got ${JSON.stringify(logid)}`,
      );
    let refreshed = false;
    let fresh: string | undefined;
    let retry = 0;
    for (;;) {
      // The refreshed token is used as is: a provider that does not cache would be asked twice.
      const token = fresh ?? (await this.guard(operation, () => this.tokens.get(signal), signal));
      fresh = undefined;
      // The slot last, right before sending: a wait for the token after it would make calls
      // reserved a second apart reach the platform together.
      await this.guard(operation, () => this.slot(operation, appid, signal), signal);
      let response: RawResponse | undefined;
      let failure: MediaError;
      let retryable: boolean;
      // One span per attempt: a resend is another HTTP request (its own parent id downstream).
      const outgoing = await startOutgoing(parent, {
        method: 'POST',
        url,
        name: `POST ${API_PREFIX}${operation}`,
        attributes:
          retry === 0
            ? { 'cloudfn.media.operation': operation }
            : { 'cloudfn.media.operation': operation, 'http.request.resend_count': retry },
      });
      try {
        response = await exchange(options, {
          label: operation,
          url,
          json,
          accessToken: token,
          signal,
          timeoutMs,
          logger,
          appid,
          traceparent: outgoing?.traceparent,
          tracestate: outgoing?.tracestate,
          logid,
        });
      } catch (error) {
        if (!(error instanceof ExchangeError)) {
          outgoing?.end(undefined, 'Error');
          throw error;
        }
        failure = error.error;
        retryable = error.transient && (safe || !error.mayHaveReached);
        outgoing?.end(undefined, failure.code);
      }
      if (response !== undefined) {
        const envelope =
          typeof response.json === 'object' && response.json !== null && !Array.isArray(response.json)
            ? (response.json as Obj)
            : undefined;
        const errNo = envelope === undefined ? undefined : errNoOf(envelope);
        const ok = response.status >= 200 && response.status <= 299;
        // A 200 whose err_no is not 0 is a failure too: error.type names the err_no.
        outgoing?.end(response.status, ok && errNo !== undefined && errNo !== 0 ? `err_no ${errNo}` : undefined);
        if (ok && envelope !== undefined && (errNo === undefined || errNo === 0)) {
          log(logger, 'info', {
            media: operation,
            status: response.status,
            err_no: 0,
            log_id: response.logId,
            ...traceFields(outgoing),
            ms: options.clock.now() - started,
            attempts: retry + 1,
          });
          return normalizeResponse(operation, envelope, response.logId);
        }
        if (ok && envelope === undefined) {
          failure = createMediaError(
            'MEDIA_BAD_RESPONSE',
            { operation },
            operation,
            response.status,
            'the body is not a JSON object',
          );
          retryable = false;
        } else {
          failure = new MediaApiError({
            operation,
            status: response.status,
            errNo,
            errMsg: envelope?.err_msg === undefined || envelope.err_msg === null ? '' : String(envelope.err_msg),
            logId: response.logId,
            body: response.json,
          });
          // A 401 naming another err_no (a refused signature, say) is not cured by a new token.
          const tokenError =
            errNo !== undefined && errNo !== 0 ? options.tokenErrorCodes.has(errNo) : response.status === 401;
          if (tokenError && !refreshed && this.tokens.refreshable) {
            // The platform refused the token before acting, so even a changing call may be resent once.
            log(logger, 'warn', {
              media: operation,
              status: response.status,
              err_no: errNo,
              log_id: response.logId,
              ...traceFields(outgoing),
              action: 'token refresh',
            });
            refreshed = true;
            fresh = await this.guard(operation, () => this.tokens.refresh(token, signal), signal);
            continue;
          }
          retryable = safe && (response.status === 429 || response.status >= 500);
        }
      }
      if (!retryable! || retry >= options.retries) {
        log(logger, 'info', {
          media: operation,
          status: failure!.status,
          error: failure!.message,
          log_id: response?.logId,
          ...traceFields(outgoing),
          ms: options.clock.now() - started,
          attempts: retry + 1,
        });
        throw failure!;
      }
      const delay = this.backoff(retry, response?.retryAfterSeconds);
      log(logger, 'warn', {
        media: operation,
        status: response?.status,
        error: failure!.message,
        log_id: response?.logId,
        ...traceFields(outgoing),
        retry: retry + 1,
        delay_ms: delay,
      });
      retry++;
      await this.guard(operation, () => options.clock.sleep(delay, signal), signal);
    }
  }

  /** Full jitter: a random delay up to base·2^retry, capped; never shorter than Retry-After (capped too). */
  private backoff(retry: number, retryAfterSeconds: number | undefined): number {
    const { retryDelayMs, maxRetryDelayMs, random } = this.options;
    const ceiling = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** retry);
    const jittered = Math.floor(random() * ceiling);
    return retryAfterSeconds === undefined
      ? jittered
      : Math.max(jittered, Math.min(maxRetryDelayMs, retryAfterSeconds * 1000));
  }

  /** Runs a wait, turning the caller's abort into MEDIA_ABORTED. */
  private async guard<T>(operation: string, wait: () => Promise<T> | T, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await wait();
    } catch (error) {
      if (signal?.aborted && !(error instanceof MediaError)) {
        const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
        throw createMediaError('MEDIA_ABORTED', { operation, cause: error }, operation, reason);
      }
      throw error;
    }
  }

  /** The signed JSON POST the client-token exchange uses; network failures and 5xx are retried. */
  readonly post: JsonPost = async (url, body) => {
    const { options } = this;
    const json = JSON.stringify(body);
    for (let retry = 0; ; retry++) {
      try {
        // The client token is the provider's, not a mini-program's: signed with the default appid when there is one.
        const response = await exchange(options, {
          label: 'client_token',
          url,
          json,
          accessToken: undefined,
          signal: undefined,
          timeoutMs: options.timeoutMs,
          logger: options.logger,
          appid: options.signing?.appid,
        });
        if ((response.status === 429 || response.status >= 500) && retry < options.retries) {
          await options.clock.sleep(this.backoff(retry, response.retryAfterSeconds));
          continue;
        }
        return { status: response.status, body: response.json, logId: response.logId };
      } catch (error) {
        if (!(error instanceof ExchangeError)) throw error;
        if (!error.transient || retry >= options.retries) throw error.error;
        await options.clock.sleep(this.backoff(retry, undefined));
      }
    }
  };
}

/**
 * The trace fields of a call's log line: `trace_id`, and `client_span_id`, the span id the
 * platform saw as its parent (a service as logger adds the request's own `span_id`).
 */
function traceFields(outgoing: OutgoingTrace | undefined): Obj {
  return outgoing === undefined ? {} : { trace_id: outgoing.traceId, client_span_id: outgoing.spanId };
}

function log(logger: MediaLogger | undefined, level: 'info' | 'warn', entry: Obj): void {
  logger?.[level](entry);
}
