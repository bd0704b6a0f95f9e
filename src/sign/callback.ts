/**
 * Callback notifications, platform to provider (platform contract, Signing): signed like
 * responses, verified over the raw body before any parser touches it.
 */
import type { KeyInput } from './keys.js';
import { signError } from './errors.js';
import { defaultNonceStore, type NonceStore } from './nonce.js';
import { readHeader, resolveProfile, type HeaderProfile, type HeadersInput } from './profile.js';
import { checkSigned } from './response.js';
import { rawBodyError, type RawBody } from './string-to-sign.js';
import { DEFAULT_MAX_AGE_SECONDS, DEFAULT_MAX_FUTURE_SKEW_SECONDS, windowOption, type Clock } from './window.js';

/** Options of `verifyCallback` (and of `verifyServiceCallback` and `callbackMiddleware`, less headers and body). */
export interface VerifyCallbackOptions {
  /** The callback request's headers: `req.headers`, `service.headers` or a fetch `Headers`. */
  headers: HeadersInput;
  /** The body exactly as received: a Buffer or text. A parsed object is refused. */
  rawBody: RawBody;
  /** The platform public key. */
  publicKey: KeyInput;
  /** Oldest accepted timestamp, in seconds. @default 3600 */
  maxAgeSeconds?: number;
  /** Furthest accepted timestamp ahead of `now`, in seconds. @default 300 */
  maxFutureSkewSeconds?: number;
  /** Where nonces are remembered; `false` turns replay checks off. @default a per-process MemoryNonceStore */
  nonceStore?: NonceStore | false;
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
}

/**
 * Verifies a callback: the three headers, the timestamp window, the signature over
 * timestamp, nonce and raw body, then replay. Throws a `SignatureError` (status 401).
 * @example
 * await verifyCallback({ headers: req.headers, rawBody, publicKey: process.env.PLATFORM_PUBLIC_KEY! })
 * const event = JSON.parse(rawBody.toString('utf8'))
 */
export async function verifyCallback(options: VerifyCallbackOptions): Promise<VerifiedCallback> {
  const body = options.rawBody;
  if (body !== undefined && body !== null && typeof body === 'object' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer)) {
    throw rawBodyError(body, 'rawBody');
  }
  const profile = resolveProfile(options.profile);
  const maxAge = windowOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_MAX_AGE_SECONDS);
  const maxFuture = windowOption(options.maxFutureSkewSeconds, 'maxFutureSkewSeconds', DEFAULT_MAX_FUTURE_SKEW_SECONDS);
  const { timestamp, nonce, now } = checkSigned(
    profile,
    readHeader(options.headers, profile.timestamp),
    readHeader(options.headers, profile.nonce),
    readHeader(options.headers, profile.signature),
    body,
    options.publicKey,
    maxAge,
    options.now,
    maxFuture,
  );
  const store = options.nonceStore === undefined ? defaultNonceStore : options.nonceStore;
  if (store !== false && (await store.seen(`callback:${nonce}`, maxAge + maxFuture, now))) throw signError('SIGN_REPLAY', nonce);
  return { timestamp, nonce };
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
export function verifyServiceCallback(service: CallbackService, options: Omit<VerifyCallbackOptions, 'headers' | 'rawBody'>): Promise<VerifiedCallback> {
  return verifyCallback({ ...options, headers: service.headers, rawBody: service.rawBody });
}
