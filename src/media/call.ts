/**
 * One operation, start to end: check it (call-options.ts), then the retry loop (retry-policy.ts)
 * around one signed attempt (attempt.ts) after the token and the rate limiter's slot: return the
 * normalized body, refresh the token once, retry with back-off, or throw a precise error.
 * Also the client-token POST, through the same loop.
 */
import type { OutgoingTrace } from '../../runtime/trace/outgoing.js';
import type { FleetWarn } from '../fleet/connect.js';
import type { Answered, RedisRateLimiter } from '../fleet/rate-limiter.js';
import { untilAborted } from './abort.js';
import { signedAttempt } from './attempt.js';
import { type CallOptions, prepareCall } from './call-options.js';
import { normalizeResponse } from './normalize.js';
import type { MediaLogger, ResolvedMediaOptions } from './options.js';
import { TokenBucket } from './rate-limit.js';
import { decideRetry, retryLoop } from './retry-policy.js';
import { TokenManager } from './token.js';
import type { JsonPost } from './token.js';
import { exchange, ExchangeError } from './transport.js';
import type { RawResponse } from './transport.js';
import { API_PREFIX } from './types.js';
import type { Operation, RequestOf, ResponseOf } from './types.js';

/** Operations whose rate limit counts per mini-program (docs/platform-contract.md, media limits: start_work_flow is 20 per second per mini-program); the others count per provider. */
const PER_APP_LIMIT: ReadonlySet<Operation> = new Set(['start_work_flow']);

/**
 * Operations that change something. Once such a request may have reached the platform it is
 * never sent again: a second delete, upload or transcode could act twice.
 */
const UNSAFE: ReadonlySet<Operation> = new Set(['delete_video', 'upload_video_by_urls', 'start_work_flow']);

type Obj = Record<string, unknown>;

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
   * (no setting, or Redis failing, warned once by the limiter) this process's bucket. Resolves
   * with what to call once the call has its answer (the shared log counts it until then).
   */
  private async slot(
    operation: Operation,
    appid: string | undefined,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<Answered | undefined> {
    const rate = this.options.rateLimits.get(operation);
    if (rate === undefined) return undefined;
    // Aborted while the token was awaited: take no slot, send nothing.
    if (signal?.aborted) throw signal.reason;
    if (this.limiter !== undefined) {
      const key = PER_APP_LIMIT.has(operation) && appid !== undefined ? `${operation}:${appid}` : operation;
      // The lease: an instance that dies mid-call frees its place once the call would have timed out.
      const answered = await (await this.limiter).take(key, rate, this.options.clock, signal, timeoutMs + 5000);
      if (answered !== undefined) return answered;
    }
    await this.bucket(operation, appid)?.take(signal);
    return undefined;
  }

  /** The bucket a call of `operation` for `appid` waits on, or undefined when it has no limit. */
  private bucket(operation: Operation, appid: string | undefined): TokenBucket | undefined {
    const rate = this.options.rateLimits.get(operation);
    if (rate === undefined) return undefined;
    const key = PER_APP_LIMIT.has(operation) && appid !== undefined ? `${operation}\n${appid}` : operation;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      // The fallback of the shared limit starts empty: the fleet may have sent 20 this second.
      bucket = new TokenBucket(rate, this.options.clock, this.limiter === undefined);
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
    const { json, appid, parent, logid } = prepareCall(options, operation, request, callOptions);
    const url = options.baseUrl + API_PREFIX + operation;
    const signal = callOptions.signal;
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs;
    const safe = !UNSAFE.has(operation);
    const started = options.clock.now();
    const logger = callOptions.logger ?? options.logger;
    let refreshed = false;
    let fresh: string | undefined;
    return retryLoop<ResponseOf<O>>(
      async (retry) => {
        // The refreshed token is used as is: a provider that does not cache would be asked twice.
        const token = fresh ?? (await untilAborted(operation, signal, () => this.tokens.get(signal)));
        fresh = undefined;
        // The slot last, once the request is signed, right before it is sent: a wait after it
        // (the token, the span, a first signing: 400 ms measured on a cold instance of a loaded
        // machine) would hold a place of the shared log for nothing.
        let answered: Answered | undefined;
        const ready = async (): Promise<void> => {
          answered = await untilAborted(operation, signal, () => this.slot(operation, appid, signal, timeoutMs));
        };
        const attempt = { operation, url, json, accessToken: token, signal, timeoutMs, logger, appid, logid, ready };
        let result: Awaited<ReturnType<typeof signedAttempt>>;
        try {
          result = await signedAttempt(options, { ...attempt, parent, retry });
        } finally {
          answered?.();
        }
        if (result.ok) {
          const { logId } = result.response;
          log(logger, 'info', {
            media: operation,
            status: result.response.status,
            err_no: 0,
            log_id: logId,
            ...traceFields(result.outgoing),
            ms: options.clock.now() - started,
            attempts: retry + 1,
          });
          return { action: 'done', value: normalizeResponse(operation, result.envelope, logId) };
        }
        const { error, response, outgoing } = result;
        const decision = decideRetry(
          {
            retry,
            failure: result.failure,
            error,
            retryAfterSeconds: response?.retryAfterSeconds,
            safe,
            canRefresh: !refreshed && this.tokens.refreshable,
          },
          options,
        );
        if (decision.action === 'refresh') {
          log(logger, 'warn', {
            media: operation,
            status: response?.status,
            err_no: result.errNo,
            log_id: response?.logId,
            ...traceFields(outgoing),
            action: 'token refresh',
          });
          refreshed = true;
          fresh = await untilAborted(operation, signal, () => this.tokens.refresh(token, signal));
          return { action: 'resend' };
        }
        if (decision.action === 'give-up') {
          log(logger, 'info', {
            media: operation,
            status: error.status,
            error: error.message,
            log_id: response?.logId,
            ...traceFields(outgoing),
            ms: options.clock.now() - started,
            attempts: retry + 1,
          });
          throw decision.error;
        }
        log(logger, 'warn', {
          media: operation,
          status: response?.status,
          error: error.message,
          log_id: response?.logId,
          ...traceFields(outgoing),
          retry: retry + 1,
          delay_ms: decision.delayMs,
        });
        return decision;
      },
      (delayMs) => untilAborted(operation, signal, () => options.clock.sleep(delayMs, signal)),
    );
  }

  /** The signed JSON POST the client-token exchange uses; network failures, 429 and 5xx are retried. */
  readonly post: JsonPost = async (url, body) => {
    const { options } = this;
    const json = JSON.stringify(body);
    // The client token is the provider's, not a mini-program's: sent as a safe request, signed
    // with the default appid when there is one, with no token to refresh.
    const policy = { safe: true, canRefresh: false };
    return retryLoop(
      async (retry) => {
        let response: RawResponse;
        try {
          response = await exchange(options, {
            label: 'client_token',
            url,
            json,
            accessToken: undefined,
            signal: undefined,
            timeoutMs: options.timeoutMs,
            logger: options.logger,
            appid: options.signing?.appid,
          });
        } catch (error) {
          if (!(error instanceof ExchangeError)) throw error;
          const failure = {
            kind: 'exchange',
            transient: error.transient,
            mayHaveReached: error.mayHaveReached,
          } as const;
          const decision = decideRetry(
            { ...policy, retry, failure, error: error.error, retryAfterSeconds: undefined },
            options,
          );
          if (decision.action === 'retry') return decision;
          throw error.error;
        }
        const answer = { status: response.status, body: response.json, logId: response.logId };
        if (response.status === 429 || response.status >= 500) {
          // Out of retries, the refusal is the answer: the token exchange reports it.
          const failure = { kind: 'refused', status: response.status, tokenError: false } as const;
          const decision = decideRetry(
            { ...policy, retry, failure, error: answer, retryAfterSeconds: response.retryAfterSeconds },
            options,
          );
          if (decision.action === 'retry') return decision;
        }
        return { action: 'done', value: answer };
      },
      (delayMs) => options.clock.sleep(delayMs),
    );
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
