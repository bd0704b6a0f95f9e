/**
 * A rate limit a fleet shares: at most `limit` calls in any `windowMs` at the platform, counted
 * in Redis per key (operation and mini-program), so N instances together stay under the
 * platform's limit, whatever the load of the machines they run on.
 *
 * The log holds the calls themselves, not slots planned ahead. A call is admitted when fewer
 * than `limit` calls are in flight or were answered within the window; it is counted from its
 * admission until its answer, and then at the time of its answer. The platform counts a call
 * somewhere between the two, so any two calls counted apart reach it a window apart: a timer
 * that fires late, an instance descheduled between the check and the send, a cold connection
 * or a platform that reads its requests late cannot put more than `limit` in one of its
 * seconds. (A log of slots reserved ahead, the previous design, counted each call at its slot:
 * on 2 busy cores calls left up to 400 ms after their slots and met, at the platform, the
 * calls of the next second: 21 to 36 in one window.) One Lua script admits or answers how long
 * to wait, atomically and on Redis' clock; another records the answer. A call in flight whose
 * instance died counts until its lease ends.
 *
 * Why scripts and not rate-limiter-flexible: one EVALSHA per admission and one per answer, no
 * dependency beyond the client, and the sliding-window rule the platform applies, with waiting
 * rather than refusing.
 */
import { randomBytes } from 'node:crypto';
import { redisClient, jsonWarn, type FleetWarn } from './connect.js';
import type { RedisSettings } from './settings.js';

/**
 * KEYS[1] the log, a sorted set: `p:<id>` a call in flight, scored with its lease's end;
 * `a:<id>` an answered call, scored with the time of its answer. ARGV[1] limit, ARGV[2]
 * window in ms (with the margin), ARGV[3] the call's id, ARGV[4] its lease in ms, ARGV[5] the
 * wait when only calls in flight block. Returns 0 when admitted, else the ms to wait.
 */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local counted = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local n = #counted / 2
if n < limit then
  local lease = now + tonumber(ARGV[4])
  redis.call('ZADD', KEYS[1], lease, 'p:' .. ARGV[3])
  local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
  redis.call('PEXPIRE', KEYS[1], last - now + window)
  return 0
end
local k = n - limit + 1
local member = counted[2 * k - 1]
local ends = tonumber(counted[2 * k]) + window - now
if string.sub(member, 1, 2) == 'p:' then
  local poll = tonumber(ARGV[5])
  if ends > poll then return poll end
end
if ends < 1 then return 1 end
return ends
`;

/** KEYS[1] the log; ARGV[1] the call's id, ARGV[2] window in ms. Counts the call at its answer, now. */
const ANSWERED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[1], 'p:' .. ARGV[1])
redis.call('ZADD', KEYS[1], now, 'a:' .. ARGV[1])
local last = tonumber(redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[1], math.max(last - now, 0) + tonumber(ARGV[2]))
return 0
`;

/** The clock `take` sleeps on (the media client's). */
export interface SlotClock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Options of `RedisRateLimiter`. */
export interface RedisRateLimiterOptions {
  /** Length of the window. @default 1000 */
  windowMs?: number;
  /**
   * Added to the window: the clocks' millisecond roundings, and a platform whose clock runs a
   * little apart from Redis'. Delays of the send need none (a call counts until its answer).
   * @default 20
   */
  marginMs?: number;
  /**
   * How long a call in flight counts before it is taken as answered, for an instance that died
   * with calls in flight; the media client passes its call timeout plus 5 s.
   * @default 15000
   */
  leaseMs?: number;
  /** How a fallback is reported. @default a JSON line on stdout */
  warn?: FleetWarn;
}

/** Said when an admitted call has its answer (or gave up): it then counts from now. */
export type Answered = () => void;

/** The wait when only calls in flight stand in the way: they usually answer within a few ms. */
const IN_FLIGHT_POLL_MS = 10;

/**
 * Times a command that timed out is sent again before the limiter falls back. On a busy machine
 * an instance's event loop stalls past the command timeout while Redis has answered (ioredis'
 * timer runs before the answer is read): falling back then let an instance send its own 20 on
 * top of the fleet's, 20 calls refused in a burst of 80 on 2 busy cores. Both scripts are
 * idempotent for one call's id, so sending one again never counts a call twice.
 */
const TIMEOUT_RETRIES = 3;
const isTimeout = (error: unknown): boolean => /timed out/i.test((error as Error | undefined)?.message ?? '');

/**
 * The shared limit of a fleet. `take` waits until a call may leave and resolves with the
 * function to call once its answer came, or with undefined when Redis did not answer (the
 * caller falls back to its local limiter).
 * @example
 * const answered = await limiter.take('start_work_flow:tt123', 20, systemClock, signal)
 * try { await send() } finally { answered?.() }
 */
export class RedisRateLimiter {
  readonly #settings: RedisSettings;
  readonly #windowMs: number;
  readonly #leaseMs: number;
  readonly #warn: FleetWarn;
  #warned = false;

  constructor(settings: RedisSettings, options: RedisRateLimiterOptions = {}) {
    this.#settings = settings;
    this.#windowMs = (options.windowMs ?? 1000) + (options.marginMs ?? 20);
    this.#leaseMs = options.leaseMs ?? 15_000;
    this.#warn = options.warn ?? jsonWarn;
  }

  /**
   * Waits until a call of `key` may leave (admitted in the log) and resolves with its
   * `Answered`, or with undefined when Redis did not answer. Rejects when `signal` aborts the wait.
   */
  async take(
    key: string,
    limit: number,
    clock: SlotClock,
    signal?: AbortSignal,
    leaseMs = this.#leaseMs,
  ): Promise<Answered | undefined> {
    const id = randomBytes(9).toString('base64url');
    const log = `${this.#settings.keyPrefix}rate:${key}`;
    for (;;) {
      const wait = await this.#eval(key, ADMIT, log, limit, this.#windowMs, id, leaseMs, IN_FLIGHT_POLL_MS);
      if (wait === undefined) return undefined;
      if (wait === 0) return () => void this.#eval(key, ANSWERED, log, id, this.#windowMs);
      await clock.sleep(wait, signal);
    }
  }

  async #eval(key: string, script: string, log: string, ...args: (string | number)[]): Promise<number | undefined> {
    try {
      const redis = await redisClient(this.#settings, this.#warn);
      for (let retry = 0; ; retry++) {
        try {
          const answer = await redis.eval(script, 1, log, ...args);
          this.#warned = false;
          return Math.max(0, Number(answer));
        } catch (error) {
          if (retry >= TIMEOUT_RETRIES || !isTimeout(error)) throw error;
        }
      }
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
