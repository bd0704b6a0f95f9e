/**
 * The client token of a fleet, in Redis: one fetch for all instances. A caller that needs a
 * token reads the shared one; when it is missing, expiring or was refused, one instance takes
 * a short lock (`SET NX PX`) and fetches while the others wait for the new token to appear.
 * On the platform a new token retires the previous one 5 minutes later and more than 500
 * fetches in 5 minutes are refused, so instances refreshing on their own knock each other's
 * tokens out; sharing the token is what the platform's guide asks for.
 */
import { redisClient, jsonWarn, type FleetWarn } from './connect.js';
import type { RedisSettings } from './settings.js';

/** A token as shared: the value and when it stops being used (ms since the epoch). */
export interface SharedToken {
  token: string;
  /** When instances stop using it and fetch anew. */
  refreshAt: number;
}

/** Options of `RedisTokenStore`. */
export interface RedisTokenStoreOptions {
  /** How long the refresh lock is held at most, in ms. @default 10000 */
  lockMs?: number;
  /** How often a waiting instance looks for the new token, in ms. @default 50 */
  pollMs?: number;
  warn?: FleetWarn;
}

/**
 * Deletes the token only if it is still the refused one (compare-and-delete): a late report
 * of an old token's refusal must not throw away the new one.
 */
const RETIRE = `
local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).token == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Releases the lock only if this instance still holds it. */
const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Shares client tokens across instances. Every method answers undefined (or false) when Redis
 * did not answer, and the caller falls back to fetching for itself, with a warning.
 * @example const store = new RedisTokenStore(settings)
 */
export class RedisTokenStore {
  readonly #settings: RedisSettings;
  readonly #lockMs: number;
  readonly #pollMs: number;
  readonly #warn: FleetWarn;
  readonly #owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;

  constructor(settings: RedisSettings, options: RedisTokenStoreOptions = {}) {
    this.#settings = settings;
    this.#lockMs = options.lockMs ?? 10_000;
    this.#pollMs = options.pollMs ?? 50;
    this.#warn = options.warn ?? jsonWarn;
  }

  get lockMs(): number {
    return this.#lockMs;
  }

  get pollMs(): number {
    return this.#pollMs;
  }

  #key(scope: string): string {
    return `${this.#settings.keyPrefix}token:${scope}`;
  }

  /** The shared token of `scope` (e.g. the client key), or undefined. Throws when Redis fails. */
  async read(scope: string): Promise<SharedToken | undefined> {
    const redis = await redisClient(this.#settings, this.#warn);
    const raw = await redis.get(this.#key(scope));
    if (raw === null) return undefined;
    const parsed = JSON.parse(raw) as SharedToken;
    return typeof parsed.token === 'string' && typeof parsed.refreshAt === 'number' ? parsed : undefined;
  }

  /** Takes the refresh lock of `scope`: true when this instance should fetch. Throws when Redis fails. */
  async lock(scope: string): Promise<boolean> {
    const redis = await redisClient(this.#settings, this.#warn);
    return (await redis.set(`${this.#key(scope)}:lock`, this.#owner, 'PX', this.#lockMs, 'NX')) === 'OK';
  }

  /** Publishes a new token and releases the lock. Throws when Redis fails. */
  async write(scope: string, token: SharedToken, expiresAt: number): Promise<void> {
    const redis = await redisClient(this.#settings, this.#warn);
    const ttl = Math.max(1000, Math.round(expiresAt - Date.now()));
    await redis.set(this.#key(scope), JSON.stringify(token), 'PX', Number.isFinite(ttl) ? ttl : 7 * 24 * 3600 * 1000);
    await this.unlock(scope);
  }

  /** Releases the lock if this instance holds it. */
  async unlock(scope: string): Promise<void> {
    const redis = await redisClient(this.#settings, this.#warn);
    await redis.eval(UNLOCK, 1, `${this.#key(scope)}:lock`, this.#owner);
  }

  /** Forgets `refused` if it is still the shared token, so the next reader refreshes once. */
  async retire(scope: string, refused: string): Promise<void> {
    const redis = await redisClient(this.#settings, this.#warn);
    await redis.eval(RETIRE, 1, this.#key(scope), refused);
  }

  /** Reports a fallback to a local fetch. */
  warnFallback(scope: string, error: unknown): void {
    this.#warn(
      `the shared token cache for ${scope} fell back to a fetch by this instance: ${(error as Error).message ?? String(error)}`,
    );
  }
}
