/**
 * Which nonce store a verifier uses when given none: a `RedisNonceStore` when a Redis setting
 * is present (the verifier's `redis` option, else `CLOUDFN_REDIS_URL` or `REDIS_ADDRESS`), so
 * every instance of a fleet refuses a replay; else the per-process `defaultNonceStore`. Stores
 * are made once per setting (per URL), and the lookup without a setting reads two variables.
 */
import { RedisNonceStore } from '../fleet/nonce-store.js';
import { resolveRedisSettings, type RedisOption } from '../fleet/settings.js';
import { defaultNonceStore, type NonceStore } from './nonce.js';

/** Redis stores by the setting's text (URL, prefix, timeout); a client given in code by identity. */
const byUrl = new Map<string, NonceStore>();
const byClient = new WeakMap<object, NonceStore>();

/**
 * The store a verifier uses when its `nonceStore` option is not given.
 * @example const store = sharedNonceStore(undefined) // defaultNonceStore, or a RedisNonceStore when CLOUDFN_REDIS_URL is set
 */
export function sharedNonceStore(redis: RedisOption | undefined, env: NodeJS.ProcessEnv = process.env): NonceStore {
  // The common case, one instance without Redis: two property reads, no parsing.
  if (redis === undefined && !env.CLOUDFN_REDIS_URL && !env.REDIS_ADDRESS) return defaultNonceStore;
  if (redis !== undefined && typeof redis === 'object' && redis !== null) {
    let store = byClient.get(redis);
    if (store === undefined) {
      store = new RedisNonceStore(resolveRedisSettings({ option: redis, env })!);
      byClient.set(redis, store);
    }
    return store;
  }
  const key = [
    redis ?? '',
    env.CLOUDFN_REDIS_URL,
    env.REDIS_ADDRESS,
    env.REDIS_USERNAME,
    env.REDIS_PASSWORD,
    env.CLOUDFN_REDIS_TIMEOUT,
    env.CLOUDFN_REDIS_PREFIX,
  ].join('\n');
  let store = byUrl.get(key);
  if (store === undefined) {
    const settings = resolveRedisSettings({ option: redis, env });
    store = settings === undefined ? defaultNonceStore : new RedisNonceStore(settings);
    byUrl.set(key, store);
  }
  return store;
}
