/**
 * A client-side token bucket per operation (platform contract, Media API: 20 per second for
 * start_work_flow and both statistics operations). A burst waits for its slot instead of
 * failing on the platform's limit.
 */
import type { MediaClock } from './clock.js';

/**
 * A token bucket that holds `rate` tokens and refills `rate` per second. Callers that find it
 * empty reserve a future token (the level goes negative), so waiters are served in order.
 * @example const bucket = new TokenBucket(20, systemClock); await bucket.take(signal);
 */
export class TokenBucket {
  readonly rate: number;
  private readonly clock: MediaClock;
  private level: number;
  private updated: number;

  /**
   * @param full whether it starts with `rate` tokens; a fallback from the fleet's shared limit
   * starts empty, so it does not add a burst of its own to the fleet's last second. @default true
   */
  constructor(rate: number, clock: MediaClock, full = true) {
    this.rate = rate;
    this.clock = clock;
    this.level = full ? rate : 0;
    this.updated = clock.now();
  }

  /** Waits until a token is available and takes it. Rejects (and returns the token) on abort. */
  async take(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    this.level = Math.min(this.rate, this.level + ((now - this.updated) / 1000) * this.rate);
    this.updated = now;
    this.level -= 1;
    if (this.level >= 0) return;
    const waitMs = Math.ceil((-this.level / this.rate) * 1000);
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (error) {
      this.level += 1;
      throw error;
    }
  }
}
