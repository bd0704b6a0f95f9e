/**
 * The options of `createMediaClient`, read in one place: the option given in code, then its
 * `CLOUDFN_MEDIA_*` env var, then the default, each through a validator (option-readers.ts). A
 * deployed function can therefore be configured without code. The credentials (token, signing
 * key, platform keys) are declared and resolved in credentials.ts.
 */
import type { KeyObject } from 'node:crypto';
import type { PlatformKeySource } from '../sign/index.js';
import { resolveRedisSettings } from '../fleet/settings.js';
import type { RedisOption, RedisSettings } from '../fleet/settings.js';
import type { MediaClock } from './clock.js';
import { systemClock } from './clock.js';
import {
  type CredentialOptions,
  loadPlatformPublicKey,
  platformPublicKeyInput,
  type ResolvedSigning,
  resolvePlatformKeys,
  resolveSigning,
  resolveToken,
} from './credentials.js';
import { bad, number, text } from './option-readers.js';
import type { TokenSource } from './token.js';
import { RATE_LIMITED_OPERATIONS } from './types.js';
import type { Operation } from './types.js';
import { isOperation } from './validate.js';
import { availableFetch } from '../fetch-fallback/index.js';

/** The log methods the client uses. A function's `service` fits, so lines carry its logid. */
export interface MediaLogger {
  debug(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
}

/**
 * `err_no` values that mean "the access token is invalid or expired". The platform contract
 * (Media API) shows none; these are the codes the open platform uses for them elsewhere. An
 * HTTP 401 without an `err_no` counts too; a 401 with another `err_no` (a refused signature)
 * does not.
 * @example resolveMediaOptions({ tokenErrorCodes: [...TOKEN_ERROR_ERR_NOS, 40102] })
 */
export const TOKEN_ERROR_ERR_NOS: readonly number[] = [28001003, 28001008];

/** Options of `createMediaClient`. Each one without a function value also reads an env var. */
export interface MediaClientOptions extends CredentialOptions {
  /** Scheme, host and optional path prefix of the platform. Env `CLOUDFN_MEDIA_BASE_URL`. */
  baseUrl?: string;
  /** A token is renewed this long before it expires. Env `CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS`. @default 60000 */
  tokenRefreshMarginMs?: number;
  /** `err_no` values treated as token errors (besides an HTTP 401 without err_no). Env `CLOUDFN_MEDIA_TOKEN_ERROR_CODES` (comma list). @default TOKEN_ERROR_ERR_NOS */
  tokenErrorCodes?: readonly number[];
  /**
   * Oldest accepted response timestamp, in seconds; `false` turns the age check off (a platform
   * clock that is known to be off). Env `CLOUDFN_MEDIA_RESPONSE_MAX_AGE_S`.
   * @default 300 (DEFAULT_RESPONSE_MAX_AGE_SECONDS)
   */
  responseMaxAgeSeconds?: number | false;
  /** Default `env_id` for delete_video and the statistics. Env `CLOUDFN_MEDIA_ENV_ID`. */
  envId?: string;
  /** Time one attempt may take. Env `CLOUDFN_MEDIA_TIMEOUT_MS`. @default 10000 */
  timeoutMs?: number;
  /** Extra attempts after a retryable failure. Env `CLOUDFN_MEDIA_RETRIES`. @default 2 */
  retries?: number;
  /** First back-off delay; it doubles per attempt, with full jitter. Env `CLOUDFN_MEDIA_RETRY_DELAY_MS`. @default 200 */
  retryDelayMs?: number;
  /** Longest back-off delay. Env `CLOUDFN_MEDIA_MAX_RETRY_DELAY_MS`. @default 5000 */
  maxRetryDelayMs?: number;
  /** Calls per second for each rate-limited operation; 0 or false turns the bucket off. Env `CLOUDFN_MEDIA_RATE_LIMIT`. @default 20 */
  rateLimit?: number | false;
  /** Per-operation rates, over `rateLimit`. Env `CLOUDFN_MEDIA_RATE_LIMITS` (`op=n,op=n`). */
  rateLimits?: Partial<Record<Operation, number | false>>;
  /**
   * Redis shared by every instance of a fleet: the client token is fetched once for all of them
   * and the rate limits count across them. A `redis://` URL or an ioredis client. Env
   * `CLOUDFN_REDIS_URL`, then `REDIS_ADDRESS` (see docs/deploy.md#running-several-instances).
   * @default none: the token cache and rate limits are this process's own
   */
  redis?: RedisOption;
  /** The fetch to call. @default globalThis.fetch, or a node:https one where there is none (Node 14) */
  fetch?: typeof globalThis.fetch;
  /** Where calls are logged. @default no logging */
  logger?: MediaLogger;
  /** Time source for back-off, polling, token expiry and the rate limiter. @default systemClock */
  clock?: MediaClock;
  /** Source of jitter, in [0, 1). @default Math.random */
  random?: () => number;
  /** Where env vars are read. @default process.env */
  env?: Record<string, string | undefined>;
}

/** Every option resolved and checked. */
export interface ResolvedMediaOptions {
  baseUrl: string;
  token: TokenSource;
  tokenRefreshMarginMs: number;
  tokenErrorCodes: ReadonlySet<number>;
  signing: ResolvedSigning | undefined;
  platformPublicKey: KeyObject | undefined;
  platformKeys: PlatformKeySource | undefined;
  responseMaxAgeSeconds: number | false;
  envId: string | undefined;
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  rateLimits: ReadonlyMap<Operation, number>;
  /** The shared store's setting, or undefined when the token cache and limits are local. */
  redis: RedisSettings | undefined;
  fetch: typeof globalThis.fetch;
  logger: MediaLogger | undefined;
  clock: MediaClock;
  random: () => number;
}

function resolveBaseUrl(given: string | undefined, env: Record<string, string | undefined>): string {
  const raw = text(given, env, 'CLOUDFN_MEDIA_BASE_URL');
  if (raw === undefined)
    throw bad('baseUrl', 'it is required; pass baseUrl or set CLOUDFN_MEDIA_BASE_URL, e.g. https://open.example.com');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('baseUrl', `${JSON.stringify(raw)} is not an absolute URL; write it as https://host[/prefix]`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad('baseUrl', `${JSON.stringify(raw)} must use http or https`);
  if (url.search !== '' || url.hash !== '')
    throw bad('baseUrl', `${JSON.stringify(raw)} must not carry a query or fragment`);
  return url.href.replace(/\/+$/, '');
}

function resolveRateLimits(
  options: MediaClientOptions,
  env: Record<string, string | undefined>,
): Map<Operation, number> {
  const base = options.rateLimit === false ? 0 : number('rateLimit', options.rateLimit, env);
  const limits = new Map<Operation, number>(RATE_LIMITED_OPERATIONS.map((op) => [op, base]));
  let perOp: Partial<Record<string, number | false>> | undefined = options.rateLimits;
  const raw = env.CLOUDFN_MEDIA_RATE_LIMITS;
  if (perOp === undefined && raw !== undefined && raw.trim() !== '') {
    perOp = {};
    for (const pair of raw.split(',')) {
      const [op, value] = pair.split('=').map((s) => s.trim());
      if (op === undefined || value === undefined || value === '' || !Number.isFinite(Number(value))) {
        throw bad(
          'CLOUDFN_MEDIA_RATE_LIMITS',
          `${JSON.stringify(pair)} is not operation=number, e.g. start_work_flow=10`,
        );
      }
      perOp[op] = Number(value);
    }
  }
  for (const [op, value] of Object.entries(perOp ?? {})) {
    if (!isOperation(op)) throw bad(`rateLimits.${op}`, `${JSON.stringify(op)} is not an operation of the media API`);
    const rate = value === false || value === undefined ? 0 : value;
    if (!Number.isFinite(rate) || rate < 0)
      throw bad(`rateLimits.${op}`, `must be a number of at least 0, got ${String(value)}`);
    limits.set(op, rate);
  }
  for (const [op, rate] of limits) if (rate === 0) limits.delete(op);
  return limits;
}

/**
 * Resolves and checks every option; throws a `MediaError` (MEDIA_OPTIONS) naming the option
 * or env var and the fix.
 * @example resolveMediaOptions({ env: { CLOUDFN_MEDIA_BASE_URL: 'https://x', CLOUDFN_MEDIA_ACCESS_TOKEN: 't' } })
 */
export function resolveMediaOptions(options: MediaClientOptions = {}): ResolvedMediaOptions {
  const env = options.env ?? process.env;
  const baseUrl = resolveBaseUrl(options.baseUrl, env);
  const codesText = env.CLOUDFN_MEDIA_TOKEN_ERROR_CODES;
  const tokenErrorCodes =
    options.tokenErrorCodes ??
    (codesText === undefined || codesText.trim() === ''
      ? TOKEN_ERROR_ERR_NOS
      : codesText.split(',').map((s) => Number(s.trim())));
  for (const code of tokenErrorCodes)
    if (!Number.isInteger(code))
      throw bad('tokenErrorCodes', `must be integers, got ${JSON.stringify(codesText ?? String(code))}`);
  const publicKeyInput = platformPublicKeyInput(options, env);
  const platformKeys = resolvePlatformKeys(options, env, publicKeyInput !== undefined);
  // Node 14 (the platform's function service) has no fetch: the node:https one sends instead.
  const fetchFn = options.fetch ?? availableFetch();
  if (typeof fetchFn !== 'function') throw bad('fetch', `must be a function, got ${typeof fetchFn}`);
  const retryDelayMs = number('retryDelayMs', options.retryDelayMs, env);
  return {
    baseUrl,
    token: resolveToken(options, env, baseUrl),
    tokenRefreshMarginMs: number('tokenRefreshMarginMs', options.tokenRefreshMarginMs, env),
    tokenErrorCodes: new Set(tokenErrorCodes),
    signing: resolveSigning(options, env),
    platformPublicKey: publicKeyInput === undefined ? undefined : loadPlatformPublicKey(options, publicKeyInput),
    platformKeys,
    responseMaxAgeSeconds:
      options.responseMaxAgeSeconds === false
        ? false
        : number('responseMaxAgeSeconds', options.responseMaxAgeSeconds, env),
    envId: text(options.envId, env, 'CLOUDFN_MEDIA_ENV_ID'),
    timeoutMs: number('timeoutMs', options.timeoutMs, env),
    retries: Math.floor(number('retries', options.retries, env)),
    retryDelayMs,
    maxRetryDelayMs: Math.max(retryDelayMs, number('maxRetryDelayMs', options.maxRetryDelayMs, env)),
    rateLimits: resolveRateLimits(options, env),
    redis: resolveRedisSettings({ option: options.redis, env }),
    fetch: fetchFn,
    logger: options.logger,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  };
}
