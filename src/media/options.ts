/**
 * The options of `createMediaClient`, read in one place: the option given in code, then its
 * `CLOUDFN_MEDIA_*` env var, then the default, each through a validator. A deployed function
 * can therefore be configured without code.
 */
import type { KeyObject } from 'node:crypto';
import {
  createPlatformKeyStore,
  DEFAULT_RESPONSE_MAX_AGE_SECONDS,
  loadPrivateKey,
  loadPublicKey,
} from '../sign/index.js';
import type { KeyInput, PlatformKeySource } from '../sign/index.js';
import { resolveRedisSettings } from '../fleet/settings.js';
import type { RedisOption, RedisSettings } from '../fleet/settings.js';
import type { MediaClock } from './clock.js';
import { systemClock } from './clock.js';
import { createMediaError } from './errors.js';
import type { ClientTokenFetcher, TokenProvider, TokenSource } from './token.js';
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
export interface MediaClientOptions {
  /** Scheme, host and optional path prefix of the platform. Env `CLOUDFN_MEDIA_BASE_URL`. */
  baseUrl?: string;
  /** A fixed client token. Env `CLOUDFN_MEDIA_ACCESS_TOKEN`. Give one of accessToken, tokenProvider, credentials. */
  accessToken?: string;
  /** Supplies the token; `forceRefresh` is true after the platform refused the last one. */
  tokenProvider?: TokenProvider;
  /** The client asks `/oauth/client_token/` itself. Env `CLOUDFN_MEDIA_CLIENT_KEY`, `CLOUDFN_MEDIA_CLIENT_SECRET`. */
  credentials?: { clientKey: string; clientSecret: string };
  /** Where `credentials` are exchanged. Env `CLOUDFN_MEDIA_TOKEN_URL`. @default `${baseUrl}/oauth/client_token/` */
  tokenUrl?: string;
  /** Replaces the assumed client-token exchange (see docs/media.md). */
  fetchClientToken?: ClientTokenFetcher;
  /** A token is renewed this long before it expires. Env `CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS`. @default 60000 */
  tokenRefreshMarginMs?: number;
  /** `err_no` values treated as token errors (besides an HTTP 401 without err_no). Env `CLOUDFN_MEDIA_TOKEN_ERROR_CODES` (comma list). @default TOKEN_ERROR_ERR_NOS */
  tokenErrorCodes?: readonly number[];
  /**
   * Signs every call with `Platform-Authorization`: the provider's app private key and its
   * key_version, shared by every mini-program. `appid` is the default mini-program; a provider
   * acting for many leaves it out and names one per call (`client.forApp(appid)` or `{ appid }`).
   * Env `CLOUDFN_MEDIA_APPID`, `CLOUDFN_MEDIA_PRIVATE_KEY`, `CLOUDFN_MEDIA_KEY_VERSION`.
   */
  signing?: { appid?: string; privateKey: KeyInput; keyVersion: string | number };
  /** Verifies every 2xx response with this key (one mini-program). Env `CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY`. */
  platformPublicKey?: KeyInput;
  /**
   * Verifies every 2xx response with the platform key of the mini-program called for: a key
   * store (`createPlatformKeyStore`) or `(appid) => key | keys`. Env `CLOUDFN_MEDIA_PLATFORM_KEYS_DIR`
   * (a folder of `<appid>.pem` files). Give this or `platformPublicKey`.
   */
  platformKeys?: PlatformKeySource;
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
  signing: { appid: string | undefined; privateKey: KeyObject; keyVersion: string } | undefined;
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

const bad = (name: string, detail: string): Error => createMediaError('MEDIA_OPTIONS', {}, name, detail);

/** A PEM in an env var often has its line breaks written as `\n`. */
const unescapePem = (text: string): string => text.replace(/\\r\\n|\\n/g, '\n');

function number(
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

function text(given: string | undefined, env: Record<string, string | undefined>, envName: string): string | undefined {
  if (given !== undefined) return given;
  const value = env[envName];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
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

function resolveToken(
  options: MediaClientOptions,
  env: Record<string, string | undefined>,
  baseUrl: string,
): TokenSource {
  const given = [
    options.accessToken !== undefined && 'accessToken',
    options.tokenProvider !== undefined && 'tokenProvider',
    options.credentials !== undefined && 'credentials',
  ].filter(Boolean);
  if (given.length > 1) throw bad(given.join(' and '), 'give only one of accessToken, tokenProvider and credentials');
  const tokenUrl = text(options.tokenUrl, env, 'CLOUDFN_MEDIA_TOKEN_URL') ?? `${baseUrl}/oauth/client_token/`;
  if (options.accessToken !== undefined) {
    if (typeof options.accessToken !== 'string' || options.accessToken === '')
      throw bad('accessToken', 'must be a non-empty string');
    return { kind: 'static', token: options.accessToken };
  }
  if (options.tokenProvider !== undefined) {
    if (typeof options.tokenProvider !== 'function')
      throw bad('tokenProvider', `must be an async function, got ${typeof options.tokenProvider}`);
    return { kind: 'provider', provider: options.tokenProvider };
  }
  if (options.credentials !== undefined) {
    const { clientKey, clientSecret } = options.credentials;
    if (!clientKey || !clientSecret) throw bad('credentials', 'needs a non-empty clientKey and clientSecret');
    return { kind: 'credentials', clientKey, clientSecret, tokenUrl, fetcher: options.fetchClientToken };
  }
  const token = text(undefined, env, 'CLOUDFN_MEDIA_ACCESS_TOKEN');
  if (token !== undefined) return { kind: 'static', token };
  const clientKey = text(undefined, env, 'CLOUDFN_MEDIA_CLIENT_KEY');
  const clientSecret = text(undefined, env, 'CLOUDFN_MEDIA_CLIENT_SECRET');
  if (clientKey !== undefined || clientSecret !== undefined) {
    if (clientKey === undefined)
      throw bad('CLOUDFN_MEDIA_CLIENT_KEY', 'is empty while CLOUDFN_MEDIA_CLIENT_SECRET is set; set both');
    if (clientSecret === undefined)
      throw bad('CLOUDFN_MEDIA_CLIENT_SECRET', 'is empty while CLOUDFN_MEDIA_CLIENT_KEY is set; set both');
    return { kind: 'credentials', clientKey, clientSecret, tokenUrl, fetcher: options.fetchClientToken };
  }
  throw bad(
    'accessToken',
    'no token source; pass accessToken, tokenProvider or credentials, or set CLOUDFN_MEDIA_ACCESS_TOKEN (or CLOUDFN_MEDIA_CLIENT_KEY and CLOUDFN_MEDIA_CLIENT_SECRET)',
  );
}

function key<T>(name: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw bad(name, (error as Error).message);
  }
}

function resolveSigning(
  options: MediaClientOptions,
  env: Record<string, string | undefined>,
): ResolvedMediaOptions['signing'] {
  if (options.signing !== undefined) {
    const { appid, privateKey, keyVersion } = options.signing;
    if (appid !== undefined && (typeof appid !== 'string' || appid === ''))
      throw bad('signing.appid', 'must be the appid of the authorized mini-program, or left out to name one per call');
    if (keyVersion === undefined || String(keyVersion) === '')
      throw bad('signing.keyVersion', 'must be the key_version of the uploaded app public key');
    const input = typeof privateKey === 'string' ? unescapePem(privateKey) : privateKey;
    return {
      appid,
      keyVersion: String(keyVersion),
      privateKey: key('signing.privateKey', () => loadPrivateKey(input)),
    };
  }
  const appid = text(undefined, env, 'CLOUDFN_MEDIA_APPID');
  const pem = text(undefined, env, 'CLOUDFN_MEDIA_PRIVATE_KEY');
  const keyVersion = text(undefined, env, 'CLOUDFN_MEDIA_KEY_VERSION');
  if (appid === undefined && pem === undefined && keyVersion === undefined) return undefined;
  const missing = [
    appid === undefined && 'CLOUDFN_MEDIA_APPID',
    pem === undefined && 'CLOUDFN_MEDIA_PRIVATE_KEY',
    keyVersion === undefined && 'CLOUDFN_MEDIA_KEY_VERSION',
  ].filter(Boolean);
  if (missing.length > 0)
    throw bad(String(missing[0]), `is empty while other signing variables are set; set ${missing.join(' and ')} too`);
  return {
    appid: appid!,
    keyVersion: keyVersion!,
    privateKey: key('CLOUDFN_MEDIA_PRIVATE_KEY', () => loadPrivateKey(unescapePem(pem!))),
  };
}

function resolvePlatformKeys(
  options: MediaClientOptions,
  env: Record<string, string | undefined>,
  hasPublicKey: boolean,
): PlatformKeySource | undefined {
  const given = options.platformKeys;
  if (given !== undefined && typeof given !== 'function' && typeof (given as { keys?: unknown }).keys !== 'function') {
    throw bad(
      'platformKeys',
      `must be a key store (createPlatformKeyStore) or a function (appid) => key, got ${typeof given}`,
    );
  }
  const dir = given === undefined ? text(undefined, env, 'CLOUDFN_MEDIA_PLATFORM_KEYS_DIR') : undefined;
  const source = given ?? (dir === undefined ? undefined : createPlatformKeyStore({ dir }));
  if (source !== undefined && hasPublicKey) {
    throw bad(
      given === undefined ? 'CLOUDFN_MEDIA_PLATFORM_KEYS_DIR' : 'platformKeys',
      'give the platform keys by appid or one platformPublicKey (CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY), not both',
    );
  }
  return source;
}

function resolveRateLimits(
  options: MediaClientOptions,
  env: Record<string, string | undefined>,
): Map<Operation, number> {
  const base =
    options.rateLimit === false ? 0 : number('rateLimit', 'CLOUDFN_MEDIA_RATE_LIMIT', options.rateLimit, env, 20, 0);
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
  const publicKeyInput = options.platformPublicKey ?? text(undefined, env, 'CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY');
  const platformKeys = resolvePlatformKeys(options, env, publicKeyInput !== undefined);
  // Node 14 (the platform's function service) has no fetch: the node:https one sends instead.
  const fetchFn = options.fetch ?? availableFetch();
  if (typeof fetchFn !== 'function') throw bad('fetch', `must be a function, got ${typeof fetchFn}`);
  const retryDelayMs = number('retryDelayMs', 'CLOUDFN_MEDIA_RETRY_DELAY_MS', options.retryDelayMs, env, 200, 0);
  return {
    baseUrl,
    token: resolveToken(options, env, baseUrl),
    tokenRefreshMarginMs: number(
      'tokenRefreshMarginMs',
      'CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS',
      options.tokenRefreshMarginMs,
      env,
      60_000,
      0,
    ),
    tokenErrorCodes: new Set(tokenErrorCodes),
    signing: resolveSigning(options, env),
    platformPublicKey:
      publicKeyInput === undefined
        ? undefined
        : key(options.platformPublicKey === undefined ? 'CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY' : 'platformPublicKey', () =>
            loadPublicKey(typeof publicKeyInput === 'string' ? unescapePem(publicKeyInput) : publicKeyInput),
          ),
    platformKeys,
    responseMaxAgeSeconds:
      options.responseMaxAgeSeconds === false
        ? false
        : number(
            'responseMaxAgeSeconds',
            'CLOUDFN_MEDIA_RESPONSE_MAX_AGE_S',
            options.responseMaxAgeSeconds,
            env,
            DEFAULT_RESPONSE_MAX_AGE_SECONDS,
            0,
          ),
    envId: text(options.envId, env, 'CLOUDFN_MEDIA_ENV_ID'),
    timeoutMs: number('timeoutMs', 'CLOUDFN_MEDIA_TIMEOUT_MS', options.timeoutMs, env, 10_000, 1),
    retries: Math.floor(number('retries', 'CLOUDFN_MEDIA_RETRIES', options.retries, env, 2, 0)),
    retryDelayMs,
    maxRetryDelayMs: Math.max(
      retryDelayMs,
      number('maxRetryDelayMs', 'CLOUDFN_MEDIA_MAX_RETRY_DELAY_MS', options.maxRetryDelayMs, env, 5_000, 0),
    ),
    rateLimits: resolveRateLimits(options, env),
    redis: resolveRedisSettings({ option: options.redis, env }),
    fetch: fetchFn,
    logger: options.logger,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  };
}
