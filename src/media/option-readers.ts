/**
 * How one option of the media client is read, through the option kit (runtime/option-kit.ts):
 * the value given in code, then its env var, then the default, and the MEDIA_OPTIONS error
 * that names the option or variable and the fix. The numeric options are a spec table here.
 */
import { DEFAULT_RESPONSE_MAX_AGE_SECONDS } from '../sign/index.js';
import { type OptionArea, type OptionSpec, readOption } from '../../runtime/option-kit.js';
import { createMediaError } from './errors.js';

/**
 * The MEDIA_OPTIONS error of option or env var `name`.
 * @example throw bad('baseUrl', 'must use http or https')
 */
export const bad = (name: string, detail: string): Error => createMediaError('MEDIA_OPTIONS', {}, name, detail);

type Env = Record<string, string | undefined>;

/**
 * The media client's area: a value given in code is named by its option, one from the
 * environment by its variable; an empty variable (or a blank one, for text) counts as unset.
 */
function area(blank: boolean): OptionArea {
  return {
    flag: (name) => name,
    fail: (_name, where, detail) => bad(where, detail),
    unset: (raw, layer) =>
      raw === undefined || (layer === 'env' && (raw === '' || (blank && typeof raw === 'string' && raw.trim() === ''))),
  };
}

const numberArea = area(false);
const textArea = area(true);

/** A number of at least `min`: the env var's text is read as a number; a value given in code must be one. */
function atLeast(env: string, fallback: number, min: number): OptionSpec<number> {
  return {
    env,
    default: fallback,
    parse: (raw, where) => {
      const value = where === env ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
        throw new TypeError(`must be a number of at least ${min}, got ${JSON.stringify(raw)}`);
      return value;
    },
  };
}

/** The numeric options: env var, default and least value (docs/media.md). */
const numbers = {
  tokenRefreshMarginMs: atLeast('CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS', 60_000, 0),
  responseMaxAgeSeconds: atLeast('CLOUDFN_MEDIA_RESPONSE_MAX_AGE_S', DEFAULT_RESPONSE_MAX_AGE_SECONDS, 0),
  timeoutMs: atLeast('CLOUDFN_MEDIA_TIMEOUT_MS', 10_000, 1),
  retries: atLeast('CLOUDFN_MEDIA_RETRIES', 2, 0),
  retryDelayMs: atLeast('CLOUDFN_MEDIA_RETRY_DELAY_MS', 200, 0),
  maxRetryDelayMs: atLeast('CLOUDFN_MEDIA_MAX_RETRY_DELAY_MS', 5_000, 0),
  rateLimit: atLeast('CLOUDFN_MEDIA_RATE_LIMIT', 20, 0),
} satisfies Record<string, OptionSpec<number>>;

/**
 * A number option: the value given in code, else its env var, else its default; below its
 * least value or not a number throws MEDIA_OPTIONS naming where the bad value came from.
 * @example number('timeoutMs', options.timeoutMs, env) // 10000
 */
export function number(name: keyof typeof numbers, given: number | undefined, env: Env): number {
  return readOption(name, numbers[name], { flags: { [name]: given }, env }, numberArea)[0];
}

/** Text as it came: the env var's trimmed, a value given in code as given. */
const textSpec = (env: string): OptionSpec<string | undefined> => ({
  env,
  default: undefined,
  parse: (raw, where) => (where === env ? (raw as string).trim() : (raw as string)),
});

/**
 * A text option: the value given in code, else its env var trimmed, else undefined (an empty
 * variable counts as unset).
 * @example text(options.envId, env, 'CLOUDFN_MEDIA_ENV_ID')
 */
export function text(given: string | undefined, env: Env, envName: string): string | undefined {
  // Named `value` in code, so its layer is told apart from the variable's.
  return readOption('value', textSpec(envName), { flags: { value: given }, env }, textArea)[0];
}
