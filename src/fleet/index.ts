/**
 * Shared state for a fleet of instances (this folder's public entry): the Redis setting, the
 * nonce store, the token store and the rate limiter that `cloudfn/sign` and `cloudfn/media`
 * switch to when `CLOUDFN_REDIS_URL` (or a `redis` option) is set.
 */
export { closeRedisClients, redisClient, redact } from './connect.js';
export type { FleetWarn } from './connect.js';
export { FleetError, createFleetError, fleetErrors } from './errors.js';
export type { FleetErrorCode } from './errors.js';
export { RedisNonceStore } from './nonce-store.js';
export { RedisRateLimiter } from './rate-limiter.js';
export type { RedisRateLimiterOptions } from './rate-limiter.js';
export { REDIS_ENV_VARS, resolveRedisSettings } from './settings.js';
export type { RedisLike, RedisOption, RedisSettings, RedisSources } from './settings.js';
export { RedisTokenStore } from './token-store.js';
export type { RedisTokenStoreOptions, SharedToken } from './token-store.js';
