/**
 * When the media client sends a request again. `decideRetry` is the policy, pure: from one
 * failed attempt (what failed, retries made, Retry-After, the budget) it answers refresh the
 * token, retry after N ms, or give up with the error. `retryLoop` is the one short loop that
 * `call` and the client-token `post` share (call.ts).
 */

/** What one failed attempt tells the policy. */
export type AttemptFailure =
  /** The exchange failed (transport.ts): no answer, or an answer that cannot be used. */
  | {
      kind: 'exchange';
      /** A timeout or a network failure: worth another try. */
      transient: boolean;
      /** False only when the connection was never made, so the platform cannot have seen it. */
      mayHaveReached: boolean;
    }
  /** The platform answered with a status other than 2xx, or with an `err_no` other than 0. */
  | {
      kind: 'refused';
      status: number;
      /** The platform refused the access token (a token `err_no`, or a 401 without one). */
      tokenError: boolean;
    }
  /** A 2xx whose body is not a JSON object. */
  | { kind: 'malformed' };

/** How much retrying a call may do (the client's options fit). */
export interface RetryBudget {
  /** Retries allowed after the first attempt. */
  retries: number;
  /** Ceiling of the first back-off; it doubles per retry. */
  retryDelayMs: number;
  /** Longest back-off, and the cap on a Retry-After. */
  maxRetryDelayMs: number;
  /** Jitter in [0, 1); drawn only when a retry is decided. */
  random: () => number;
}

/** One failed attempt, as the policy sees it. */
export interface RetryInput<E> {
  /** Retries already made: 0 after the first attempt. */
  retry: number;
  failure: AttemptFailure;
  /** The error the call ends with when the policy gives up. */
  error: E;
  /** Seconds the platform asked to wait (`Retry-After`), when it answered with one. */
  retryAfterSeconds: number | undefined;
  /** False for an operation that changes something: never sent again once it may have reached the platform. */
  safe: boolean;
  /** The token can be refreshed, and has not been yet in this call. */
  canRefresh: boolean;
}

/** What to do after a failed attempt. */
export type RetryDecision<E> =
  | { action: 'refresh' }
  | { action: 'retry'; delayMs: number }
  | { action: 'give-up'; error: E };

/**
 * The retry policy. A refused token is refreshed once, whatever the operation and the retries
 * left (the platform refused it before acting). Otherwise a failure is retried while retries
 * remain when it is transient and the request cannot have acted twice: a network failure of a
 * safe operation or one that never connected, a 429 or 5xx of a safe operation. Everything else
 * gives up with the attempt's error.
 * @example decideRetry({ retry: 0, failure: { kind: 'refused', status: 503, tokenError: false }, error, retryAfterSeconds: 2, safe: true, canRefresh: false }, options) // { action: 'retry', delayMs: 2000 } or more
 */
export function decideRetry<E>(input: RetryInput<E>, budget: RetryBudget): RetryDecision<E> {
  const { failure } = input;
  if (failure.kind === 'refused' && failure.tokenError && input.canRefresh) return { action: 'refresh' };
  if (!retryable(failure, input.safe) || input.retry >= budget.retries)
    return { action: 'give-up', error: input.error };
  return { action: 'retry', delayMs: backoffDelay(input.retry, input.retryAfterSeconds, budget) };
}

function retryable(failure: AttemptFailure, safe: boolean): boolean {
  switch (failure.kind) {
    case 'exchange':
      return failure.transient && (safe || !failure.mayHaveReached);
    case 'refused':
      return safe && (failure.status === 429 || failure.status >= 500);
    case 'malformed':
      return false;
  }
}

/**
 * Full jitter: a random delay up to base·2^retry, capped; never shorter than Retry-After
 * (capped too).
 * @example backoffDelay(1, undefined, { retries: 2, retryDelayMs: 200, maxRetryDelayMs: 5000, random: () => 0.5 }) // 200
 */
export function backoffDelay(retry: number, retryAfterSeconds: number | undefined, budget: RetryBudget): number {
  const { retryDelayMs, maxRetryDelayMs, random } = budget;
  const ceiling = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** retry);
  const jittered = Math.floor(random() * ceiling);
  return retryAfterSeconds === undefined
    ? jittered
    : Math.max(jittered, Math.min(maxRetryDelayMs, retryAfterSeconds * 1000));
}

/** What one pass of `retryLoop` came to. */
export type Pass<T> =
  /** Finished: the loop resolves with `value`. */
  | { action: 'done'; value: T }
  /** Send again at once, not counted as a retry (after a token refresh). */
  | { action: 'resend' }
  /** Wait `delayMs`, then send again as the next retry. */
  | { action: 'retry'; delayMs: number };

/**
 * The one retry loop: runs `attempt` with the number of retries made so far until it is done
 * (or throws, which ends the loop), waiting `wait(delayMs)` before each retry.
 * @example const body = await retryLoop(async (retry) => ({ action: 'done', value: await send(retry) }), (ms) => clock.sleep(ms))
 */
export async function retryLoop<T>(
  attempt: (retry: number) => Promise<Pass<T>>,
  wait: (delayMs: number) => Promise<void>,
): Promise<T> {
  let retry = 0;
  for (;;) {
    const pass = await attempt(retry);
    if (pass.action === 'done') return pass.value;
    if (pass.action === 'retry') {
      await wait(pass.delayMs);
      retry++;
    }
  }
}
