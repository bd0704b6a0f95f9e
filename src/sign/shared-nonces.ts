/**
 * Which nonce store a verifier uses when given none: a `RedisNonceStore` when a Redis setting
 * is present (the verifier's `redis` option, else `CLOUDFN_REDIS_URL` or `REDIS_ADDRESS`), so
 * every instance of a fleet refuses a replay; else the per-process `defaultNonceStore`. Stores
 * are made once per setting (per URL), and the lookup without a setting reads two variables.
 */
import type { RedisNonceStore } from '../fleet/nonce-store.js';
import { redisSettingGiven, resolveRedisSettings, type RedisOption, type RedisSettings } from '../fleet/settings.js';
import { defaultNonceStore, type NonceStore } from './nonce.js';

/**
 * A `RedisNonceStore` imported on its first claim: a bundle of a function that never sets
 * Redis carries the store and its client glue as chunks it never reads (src/build/bundle.ts).
 */
export class LazyRedisNonceStore implements NonceStore {
  readonly #settings: RedisSettings;
  #store: Promise<RedisNonceStore> | undefined;

  constructor(settings: RedisSettings) {
    this.#settings = settings;
  }

  #load(): Promise<RedisNonceStore> {
    this.#store ??= import('../fleet/nonce-store.js').then((m) => new m.RedisNonceStore(this.#settings));
    return this.#store;
  }

  async seen(key: string, ttlSeconds: number, nowSeconds: number): Promise<boolean> {
    return (await this.#load()).seen(key, ttlSeconds, nowSeconds);
  }

  async forget(key: string): Promise<void> {
    return (await this.#load()).forget(key);
  }
}

/** Redis stores by what their setting resolved to (URL, prefix, timeout); a client given in code by identity. */
const byUrl = new Map<string, NonceStore>();
const byClient = new WeakMap<object, NonceStore>();

/**
 * The store a verifier uses when its `nonceStore` option is not given.
 * @example const store = sharedNonceStore(undefined) // defaultNonceStore, or a RedisNonceStore when CLOUDFN_REDIS_URL is set
 */
export function sharedNonceStore(redis: RedisOption | undefined, env: NodeJS.ProcessEnv = process.env): NonceStore {
  // The common case, one instance without Redis, reads two variables and parses nothing.
  if (!redisSettingGiven(redis, env)) return defaultNonceStore;
  const settings = resolveRedisSettings({ option: redis, env })!;
  if (settings.client !== undefined) {
    let store = byClient.get(settings.client);
    if (store === undefined) {
      store = new LazyRedisNonceStore(settings);
      byClient.set(settings.client, store);
    }
    return store;
  }
  const key = `${settings.url}\n${settings.keyPrefix}\n${settings.commandTimeoutMs}`;
  let store = byUrl.get(key);
  if (store === undefined) {
    store = new LazyRedisNonceStore(settings);
    byUrl.set(key, store);
  }
  return store;
}
