/**
 * Which nonce store a verifier uses when given none: a `RedisNonceStore` when a Redis setting
 * is present (the verifier's `redis` option, else `CLOUDFN_REDIS_URL` or `REDIS_ADDRESS`), so
 * every instance of a fleet refuses a replay; else the per-process `defaultNonceStore`. Stores
 * are made once per setting (per URL), and the lookup without a setting reads two variables.
 */
import { RedisNonceStore } from '../fleet/nonce-store.js';
import { redisSettingGiven, resolveRedisSettings, type RedisOption } from '../fleet/settings.js';
import { defaultNonceStore, type NonceStore } from './nonce.js';

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
      store = new RedisNonceStore(settings);
      byClient.set(settings.client, store);
    }
    return store;
  }
  const key = `${settings.url}\n${settings.keyPrefix}\n${settings.commandTimeoutMs}`;
  let store = byUrl.get(key);
  if (store === undefined) {
    store = new RedisNonceStore(settings);
    byUrl.set(key, store);
  }
  return store;
}
