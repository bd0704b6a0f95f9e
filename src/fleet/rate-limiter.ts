/**
 * A rate limit a fleet shares: at most `limit` calls in any `windowMs`, counted in Redis per
 * key (operation and mini-program), so N instances together stay under the platform's limit.
 * One Lua script reserves the caller's slot atomically on Redis' clock and answers how long to
 * wait: the slot is the later of now and the `limit`-th latest reservation plus the window (a
 * sliding log). A token bucket would let a burst of `limit` and the refills land in the same
 * second; the platform counts over a sliding second, so the log is what keeps it at `limit`.
 *
 * Why a script and not rate-limiter-flexible: one EVALSHA per call, no dependency beyond the
 * client, and the exact sliding-window rule the platform applies, with waiting (reserving a
 * future slot) rather than refusing.
 */
import { redisClient, jsonWarn, type FleetWarn } from './connect.js';
import type { RedisSettings } from './settings.js';

/**
 * KEYS[1] the log; ARGV[1] limit, ARGV[2] window in ms, ARGV[3] margin in ms.
 * Returns the milliseconds to wait before the reserved slot.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2]) + tonumber(ARGV[3])
local n = redis.call('LLEN', KEYS[1])
local at = now
if n >= limit then
  local nth = tonumber(redis.call('LINDEX', KEYS[1], n - limit))
  if nth + window > at then at = nth + window end
end
local last = n > 0 and tonumber(redis.call('LINDEX', KEYS[1], -1)) or 0
if last > at then at = last end
redis.call('RPUSH', KEYS[1], at)
if n + 1 > limit then redis.call('LTRIM', KEYS[1], n + 1 - limit, -1) end
redis.call('PEXPIRE', KEYS[1], at - now + window)
return at - now
`;

/** Options of `RedisRateLimiter`. */
export interface RedisRateLimiterOptions {
  /** Length of the window. @default 1000 */
  windowMs?: number;
  /**
   * Added to the window, for calls that leave at their slot but reach the platform a little
   * apart: timers firing late and a busy event loop delay a group of calls by tens of ms (up
   * to 50 ms measured in test/fleet/fleet.test.ts on 2 busy cores), which a strict sliding
   * second at the platform counts as over the limit. It costs 10% of the rate at 20/s.
   * @default 100
   */
  marginMs?: number;
  /** How a fallback is reported. @default a JSON line on stdout */
  warn?: FleetWarn;
}

/**
 * Reserves slots in a shared sliding-window log. `reserve` answers the milliseconds to wait,
 * or undefined when Redis did not answer (the caller falls back to its local limiter).
 * @example const wait = await limiter.reserve('start_work_flow:tt123', 20)
 */
export class RedisRateLimiter {
  readonly #settings: RedisSettings;
  readonly #windowMs: number;
  readonly #marginMs: number;
  readonly #warn: FleetWarn;
  #warned = false;

  constructor(settings: RedisSettings, options: RedisRateLimiterOptions = {}) {
    this.#settings = settings;
    this.#windowMs = options.windowMs ?? 1000;
    this.#marginMs = options.marginMs ?? 100;
    this.#warn = options.warn ?? jsonWarn;
  }

  async reserve(key: string, limit: number): Promise<number | undefined> {
    try {
      const redis = await redisClient(this.#settings, this.#warn);
      const wait = await redis.eval(
        RESERVE,
        1,
        `${this.#settings.keyPrefix}rate:${key}`,
        limit,
        this.#windowMs,
        this.#marginMs,
      );
      this.#warned = false;
      return Math.max(0, Number(wait));
    } catch (error) {
      if (!this.#warned) {
        this.#warned = true;
        this.#warn(
          `the shared rate limit for ${key} fell back to this instance's own limiter: ${(error as Error).message}`,
        );
      }
      return undefined;
    }
  }
}
