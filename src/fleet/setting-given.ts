/**
 * The names of the Redis settings and the cheap check whether any is given. Its own module:
 * every bundle's entry makes the check at start (preflight.ts), and a process without a
 * setting loads nothing more of the fleet code.
 */

/** The environment variables read, for docs and messages. */
export const REDIS_ENV_VARS = Object.freeze({
  url: 'CLOUDFN_REDIS_URL',
  address: 'REDIS_ADDRESS',
  username: 'REDIS_USERNAME',
  password: 'REDIS_PASSWORD',
  timeout: 'CLOUDFN_REDIS_TIMEOUT',
  prefix: 'CLOUDFN_REDIS_PREFIX',
});

/**
 * Whether any Redis setting is given: the cheap check before `resolveRedisSettings`, made on
 * every verification (two environment reads when there is no option).
 * @example redisSettingGiven(undefined, process.env) // false on a single instance
 */
export function redisSettingGiven(option: unknown, env: NodeJS.ProcessEnv = process.env): boolean {
  return (
    option !== undefined || Boolean(env[REDIS_ENV_VARS.url]?.trim()) || Boolean(env[REDIS_ENV_VARS.address]?.trim())
  );
}
