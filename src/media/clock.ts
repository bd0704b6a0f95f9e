/**
 * Time as the media client sees it. Tests pass a fake clock so back-off, polling and the
 * rate limiter run without real waiting.
 */

/** The clock the client reads and sleeps on. */
export interface MediaClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The real clock: `Date.now()` and a timer that an AbortSignal cancels.
 * @example await systemClock.sleep(100, AbortSignal.timeout(50)) // rejects with a TimeoutError
 */
export const systemClock: MediaClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => abortableSleep(ms, signal),
};

/**
 * Waits `ms` milliseconds, or rejects with the signal's reason when it aborts first (the
 * reason itself, unlike `timers/promises`, which wraps it in an AbortError).
 * @example await abortableSleep(100, signal)
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
