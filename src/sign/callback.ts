/**
 * Callback notifications, platform to provider (platform contract, Signing): signed like
 * responses, verified over the raw body before any parser touches it.
 */
import type { KeyObject } from 'node:crypto';
import type { KeyInput } from './keys.js';
import { signError } from './errors.js';
import { bodyAppid, platformKeysOf, publicKeyList, type PlatformKeySource } from './platform-keys.js';
import type { RedisOption } from '../fleet/settings.js';
import type { NonceStore } from './nonce.js';
import { readHeader, resolveProfile, type HeaderProfile, type HeadersInput } from './profile.js';
import { checkSigned } from './response.js';
import { sharedNonceStore } from './shared-nonces.js';
import { bodyBuffer, assertRawBody, type RawBody } from './string-to-sign.js';
import { DEFAULT_MAX_AGE_SECONDS, DEFAULT_MAX_FUTURE_SKEW_SECONDS, windowOption, type Clock } from './window.js';

/** Options of `verifyCallback` (and of `verifyServiceCallback` and `callbackMiddleware`, less headers and body). */
export interface VerifyCallbackOptions {
  /** The callback request's headers: `req.headers`, `service.headers` or a fetch `Headers`. */
  headers: HeadersInput;
  /** The body exactly as received: a Buffer or text. A parsed object is refused. */
  rawBody: RawBody;
  /**
   * The platform public key, or its keys while one is being replaced (any may match;
   * `keyIndex` says which did). Give this or `platformKeys`.
   */
  publicKey?: KeyInput | readonly KeyInput[];
  /**
   * The platform keys of every mini-program the provider acts for, by appid: a key store
   * (`createPlatformKeyStore`) or a function `(appid) => key | keys`. The appid is `appid`, or
   * else the body's top-level `app_id` (or `appid`).
   */
  platformKeys?: PlatformKeySource;
  /** The mini-program this callback must be for; a body naming another app_id is refused. @default the body's app_id */
  appid?: string;
  /** Oldest accepted timestamp, in seconds. @default 3600 */
  maxAgeSeconds?: number;
  /** Furthest accepted timestamp ahead of `now`, in seconds. @default 300 */
  maxFutureSkewSeconds?: number;
  /**
   * Where nonces are remembered; `false` turns replay checks off.
   * @default a RedisNonceStore when `redis` or CLOUDFN_REDIS_URL (or REDIS_ADDRESS) is set, else a per-process MemoryNonceStore
   */
  nonceStore?: NonceStore | false;
  /**
   * Redis for the default nonce store, shared by every instance: a `redis://` URL or an ioredis
   * client. Ignored when `nonceStore` is given. @default CLOUDFN_REDIS_URL, then REDIS_ADDRESS
   */
  redis?: RedisOption;
  /** Header names. @default defaultHeaderProfile */
  profile?: Partial<HeaderProfile>;
  /** The verifier's clock. @default Date.now */
  now?: Clock;
}

/** What a valid callback was signed with. */
export interface VerifiedCallback {
  /** Seconds since 1970. */
  timestamp: number;
  nonce: string;
  /** The mini-program it is for: `appid`, or the body's app_id; undefined when neither names one. */
  appid: string | undefined;
  /** Which of the appid's keys verified it (0 for a single key): during a rotation, whether the old or new key signed. */
  keyIndex: number;
}

/**
 * Verifies a callback: the three headers, the timestamp window, the signature over
 * timestamp, nonce and raw body with the platform key of its mini-program, then replay.
 * Throws a `SignatureError` (status 401).
 * @example
 * await verifyCallback({ headers: req.headers, rawBody, publicKey: process.env.PLATFORM_PUBLIC_KEY! })
 * // a provider acting for many mini-programs: the key of the body's app_id
 * const { appid } = await verifyCallback({ headers: req.headers, rawBody, platformKeys: createPlatformKeyStore({ dir: 'keys/platform' }) })
 * const event = JSON.parse(rawBody.toString('utf8'))
 */
export async function verifyCallback(options: VerifyCallbackOptions): Promise<VerifiedCallback> {
  const body = options.rawBody;
  assertRawBody(body, 'rawBody');
  const profile = resolveProfile(options.profile);
  const maxAge = windowOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_MAX_AGE_SECONDS);
  const maxFuture = windowOption(options.maxFutureSkewSeconds, 'maxFutureSkewSeconds', DEFAULT_MAX_FUTURE_SKEW_SECONDS);
  const { appid, keys } = await callbackKeys(options, body);
  const { timestamp, nonce, now, keyIndex } = checkSigned(
    profile,
    readHeader(options.headers, profile.timestamp),
    readHeader(options.headers, profile.nonce),
    readHeader(options.headers, profile.signature),
    body,
    keys,
    maxAge,
    options.now,
    maxFuture,
  );
  const store = options.nonceStore === undefined ? sharedNonceStore(options.redis) : options.nonceStore;
  // Nonces are the platform's per mini-program: two mini-programs may use the same one.
  const scope = appid === undefined ? 'callback' : `callback:${appid}`;
  if (store !== false && (await store.seen(`${scope}:${nonce}`, maxAge + maxFuture, now)))
    throw signError('SIGN_REPLAY', nonce);
  return { timestamp, nonce, appid, keyIndex };
}

/** The appid a callback is for and the keys to verify it with. */
async function callbackKeys(
  options: VerifyCallbackOptions,
  body: RawBody,
): Promise<{ appid: string | undefined; keys: readonly KeyObject[] }> {
  const { publicKey, platformKeys } = options;
  if ((publicKey === undefined) === (platformKeys === undefined)) {
    throw new TypeError(
      'give publicKey (the platform public key, or its old and new keys) or platformKeys (a key store or (appid) => key), not both and not neither',
    );
  }
  if (options.appid !== undefined && (typeof options.appid !== 'string' || options.appid === '')) {
    throw new TypeError(`option appid must be the mini-program's appid, got ${JSON.stringify(options.appid)}`);
  }
  const named = bodyAppid(bodyBuffer(body, 'rawBody').toString('utf8'));
  if (options.appid !== undefined && named !== undefined && named !== options.appid)
    throw signError('SIGN_APPID_MISMATCH', options.appid, named);
  const appid = options.appid ?? named;
  if (publicKey !== undefined) return { appid, keys: publicKeyList(publicKey) };
  if (appid === undefined)
    throw signError('SIGN_NO_APPID', 'the callback body names no app_id and no appid option was given');
  return { appid, keys: await platformKeysOf(platformKeys!, appid) };
}

/** The parts of a cloudfn `service` a callback check reads. */
export interface CallbackService {
  readonly headers: HeadersInput;
  readonly rawBody: Buffer;
}

/**
 * Verifies the callback a cloud function is handling, from its `service` (raw bytes and headers).
 * @example
 * export default async function (params, service) {
 *   await verifyServiceCallback(service, { publicKey: process.env.PLATFORM_PUBLIC_KEY! })
 *   return { ok: true }
 * }
 */
export function verifyServiceCallback(
  service: CallbackService,
  options: Omit<VerifyCallbackOptions, 'headers' | 'rawBody'>,
): Promise<VerifiedCallback> {
  return verifyCallback({ ...options, headers: service.headers, rawBody: service.rawBody });
}
