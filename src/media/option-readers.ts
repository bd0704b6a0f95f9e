/**
 * How one option of the media client is read: the value given in code, then its env var, then
 * the default, and the MEDIA_OPTIONS error that names the option or variable and the fix.
 */
import { createMediaError } from './errors.js';

/**
 * The MEDIA_OPTIONS error of option or env var `name`.
 * @example throw bad('baseUrl', 'must use http or https')
 */
export const bad = (name: string, detail: string): Error => createMediaError('MEDIA_OPTIONS', {}, name, detail);

/**
 * A number option: the value given in code, else its env var, else `fallback`; below `min` or
 * not a number throws MEDIA_OPTIONS naming where the bad value came from.
 * @example number('timeoutMs', 'CLOUDFN_MEDIA_TIMEOUT_MS', options.timeoutMs, env, 10_000, 1)
 */
export function number(
  name: string,
  envName: string,
  given: number | undefined,
  env: Record<string, string | undefined>,
  fallback: number,
  min: number,
): number {
  let value = given;
  let from = name;
  if (value === undefined && env[envName] !== undefined && env[envName] !== '') {
    from = envName;
    value = Number(env[envName]);
  }
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min)
    throw bad(
      from,
      `must be a number of at least ${min}, got ${JSON.stringify(from === envName ? env[envName] : value)}`,
    );
  return value;
}

/**
 * A text option: the value given in code, else its env var trimmed, else undefined (an empty
 * variable counts as unset).
 * @example text(options.envId, env, 'CLOUDFN_MEDIA_ENV_ID')
 */
export function text(
  given: string | undefined,
  env: Record<string, string | undefined>,
  envName: string,
): string | undefined {
  if (given !== undefined) return given;
  const value = env[envName];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
