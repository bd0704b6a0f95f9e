/**
 * Responses, platform to provider (platform contract, Signing): the platform signs every 2xx
 * answer over three lines (timestamp, nonce, body); the provider refuses a 2xx without a valid
 * signature and reports an unsigned error answer as unsigned, not forged.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import { signError } from './errors.js';
import { loadPrivateKey, type KeyInput } from './keys.js';
import { publicKeyList } from './platform-keys.js';
import { generateNonce } from './nonce.js';
import { readHeader, resolveProfile, type HeaderProfile, type HeadersInput } from './profile.js';
import { nonceField, signatureView } from './signature.js';
import {
  nonceText,
  assertRawBody,
  checkedResponseView,
  responseBytes,
  timestampText,
  type RawBody,
} from './string-to-sign.js';
import {
  checkTimestamp,
  clockSeconds,
  DEFAULT_MAX_FUTURE_SKEW_SECONDS,
  DEFAULT_RESPONSE_MAX_AGE_SECONDS,
  windowOption,
  type Clock,
} from './window.js';

/** Options of `signResponse`. */
export interface SignResponseOptions {
  /** The platform private key. */
  privateKey: KeyInput;
  /** The exact body sent, text or bytes; empty for a 204. */
  body?: RawBody;
  /** @default now */
  timestamp?: number | string;
  /** @default 32 hex characters from the CSPRNG */
  nonce?: string;
  /** Header names. @default defaultHeaderProfile */
  profile?: Partial<HeaderProfile>;
}

/**
 * Signs a response (or a callback, same method) with the platform private key and gives the
 * three headers to send beside the body.
 * @example
 * const body = JSON.stringify({ ok: true })
 * res.writeHead(200, { 'Content-Type': 'application/json', ...signResponse({ privateKey: platformKey, body }) }).end(body)
 */
export function signResponse(options: SignResponseOptions): Record<string, string> {
  const key = loadPrivateKey(options.privateKey);
  const body = options.body;
  assertRawBody(body, 'body');
  const timestamp =
    options.timestamp === undefined ? String(Math.floor(Date.now() / 1000)) : timestampText(options.timestamp);
  const nonce = options.nonce === undefined ? generateNonce() : nonceText(options.nonce);
  const signature = sign('sha256', responseBytes(timestamp, nonce, body), key).toString('base64');
  const profile = resolveProfile(options.profile);
  return { [profile.timestamp]: timestamp, [profile.nonce]: nonce, [profile.signature]: signature };
}

/**
 * Signs a callback notification: the same three headers as a response (cloudfn's decision, as
 * the platform contract does not show the callback header names; see docs/decisions.md).
 * @example const headers = signCallback({ privateKey: platformKey, body: JSON.stringify(event) })
 */
export function signCallback(options: SignResponseOptions): Record<string, string> {
  return signResponse(options);
}

/** Options of `verifyResponse`. */
export interface VerifyResponseOptions {
  /** The HTTP status received. */
  status: number;
  /** The response headers: a fetch `Headers` or an object with keys in any case. */
  headers: HeadersInput;
  /** The raw body as received (`await res.text()` or the bytes); objects are refused. */
  body: RawBody;
  /**
   * The platform public key of the mini-program called for, or its keys while one is being
   * replaced (any of them may match; `keyIndex` says which did).
   */
  publicKey: KeyInput | readonly KeyInput[];
  /** Header names. @default defaultHeaderProfile */
  profile?: Partial<HeaderProfile>;
  /**
   * Refuse responses whose timestamp is older than this many seconds; `false` turns the age
   * check off (for answers captured earlier and checked later).
   * @default 300 (DEFAULT_RESPONSE_MAX_AGE_SECONDS, as the WeChat Pay v3 SDKs do)
   */
  maxAgeSeconds?: number | false;
  /** Furthest accepted timestamp ahead of `now`, in seconds. @default 300 */
  maxFutureSkewSeconds?: number;
  /** The clock for the age check. @default Date.now */
  now?: Clock;
}

/** What `verifyResponse` found. */
export interface VerifiedResponse {
  /** True when the response carried a valid signature; false for an unsigned non-2xx. */
  signed: boolean;
  timestamp?: number;
  nonce?: string;
  /** Which of the given keys verified it (0 for a single key): during a rotation, whether the old or new key signed. */
  keyIndex?: number;
}

/**
 * Verifies a response with the platform public key. A 2xx without the signature headers, or
 * any response with a bad signature, throws a `SignatureError` (forged or tampered); an
 * unsigned non-2xx gives `{ signed: false }`, because the platform signs only 2xx answers.
 * @example
 * const res = await fetch(url, init); const text = await res.text()
 * verifyResponse({ status: res.status, headers: res.headers, body: text, publicKey: platformKey })
 */
export function verifyResponse(options: VerifyResponseOptions): VerifiedResponse {
  const body = options.body;
  assertRawBody(body, 'body');
  const profile = resolveProfile(options.profile);
  const timestamp = readHeader(options.headers, profile.timestamp);
  const nonce = readHeader(options.headers, profile.nonce);
  const signature = readHeader(options.headers, profile.signature);
  const ok = options.status >= 200 && options.status < 300;
  if (!timestamp && !nonce && !signature) {
    if (ok) throw signError('SIGN_UNSIGNED_RESPONSE', options.status, profile.signature);
    return { signed: false };
  }
  const maxAge =
    options.maxAgeSeconds === false
      ? Number.POSITIVE_INFINITY
      : windowOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_RESPONSE_MAX_AGE_SECONDS);
  const maxFuture =
    options.maxAgeSeconds === false && options.maxFutureSkewSeconds === undefined
      ? Number.POSITIVE_INFINITY
      : options.maxFutureSkewSeconds;
  const checked = checkSigned(
    profile,
    timestamp,
    nonce,
    signature,
    body,
    publicKeyList(options.publicKey),
    maxAge,
    options.now,
    maxFuture,
  );
  return { signed: true, timestamp: checked.timestamp, nonce: checked.nonce, keyIndex: checked.keyIndex };
}

/**
 * The three-line check shared by responses and callbacks: the headers are present, the
 * timestamp has the right form and age, and the signature verifies with one of `keys`.
 */
export function checkSigned(
  profile: Readonly<HeaderProfile>,
  timestamp: string | undefined,
  nonce: string | undefined,
  signature: string | undefined,
  body: RawBody,
  keys: readonly KeyObject[],
  maxAgeSeconds: number,
  now: Clock | undefined,
  maxFutureSkewSeconds?: number,
): { timestamp: number; nonce: string; now: number; keyIndex: number } {
  if (!timestamp) throw signError('SIGN_MISSING_HEADER', profile.timestamp);
  if (!nonce) throw signError('SIGN_MISSING_HEADER', profile.nonce);
  if (!signature) throw signError('SIGN_MISSING_HEADER', profile.signature);
  const nowSeconds = clockSeconds(now);
  const maxFuture =
    maxFutureSkewSeconds === Number.POSITIVE_INFINITY
      ? maxFutureSkewSeconds
      : windowOption(maxFutureSkewSeconds, 'maxFutureSkewSeconds', DEFAULT_MAX_FUTURE_SKEW_SECONDS);
  const timestampValue = timestamp.trim();
  const seconds = checkTimestamp(timestampValue, nowSeconds, maxAgeSeconds, maxFuture);
  const nonceValue = nonceField(nonce.trim());
  // Both views are shared Buffers, valid until the next verify: every use is in the loop below.
  const signatureBytes = signatureView(signature.trim());
  // checkTimestamp allows 1-12 digits and nonceField the nonce grammar: both are checked.
  const data = checkedResponseView(timestampValue, nonceValue, body);
  for (let i = 0; i < keys.length; i++) {
    if (verify('sha256', data, keys[i]!, signatureBytes))
      return { timestamp: seconds, nonce: nonceValue, now: nowSeconds, keyIndex: i };
  }
  throw signError(
    'SIGN_BAD_SIGNATURE',
    keys.length > 1
      ? `the three lines (timestamp, nonce, raw body) verify with none of the ${keys.length} platform keys given, or differ from what the platform signed`
      : 'the three lines (timestamp, nonce, raw body) differ from what the platform signed, or this is not the platform public key of this mini-program',
  );
}
