/**
 * Per-key request limits over a sliding one-second window. The platform contract (Media API)
 * limits start_work_flow and the two statistics interfaces to 20 per second; the emulator keys
 * them per appid and operation.
 * @example
 * const limiter = new RateLimiter({ start_work_flow: 20 });
 * if (!limiter.take('start_work_flow', appid)) answer429();
 */
export class RateLimiter {
  readonly #limits: Readonly<Record<string, number>>;
  readonly #now: () => number;
  /** Timestamps of the accepted calls of the last second, per operation and appid. */
  readonly #recent = new Map<string, number[]>();

  constructor(limits: Readonly<Record<string, number>>, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** The limit of `operation` per second, or undefined when it has none. */
  limitOf(operation: string): number | undefined {
    return this.#limits[operation];
  }

  /** Counts one call; false when it goes over the limit (the refused call is not counted). */
  take(operation: string, appid: string): boolean {
    const limit = this.#limits[operation];
    if (limit === undefined) return true;
    const key = `${operation}\n${appid}`;
    const now = this.#now();
    const since = now - 1000;
    const times = (this.#recent.get(key) ?? []).filter((t) => t > since);
    if (times.length >= limit) {
      this.#recent.set(key, times);
      return false;
    }
    times.push(now);
    this.#recent.set(key, times);
    return true;
  }
}
