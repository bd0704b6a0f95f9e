/**
 * Requests, provider to platform (platform contract, Signing): `signRequest` makes the
 * `Platform-Authorization` value, `verifyRequest` checks one as the platform does.
 */
import { sign, verify } from 'node:crypto';
import { formatCheckedAuthorization, parseAuthorization, type AuthorizationParts } from './authorization.js';
import { signError } from './errors.js';
import { loadPrivateKey, loadPublicKey, type KeyInput } from './keys.js';
import type { RedisOption } from '../fleet/settings.js';
import { generateNonce, type NonceStore } from './nonce.js';
import { sharedNonceStore } from './shared-nonces.js';
import {
  bodyBuffer,
  linesBytes,
  methodText,
  nonceText,
  assertRawBody,
  receivedPath,
  signedPath,
  timestampText,
  type RawBody,
} from './string-to-sign.js';
import { checkSignatureText, nonceField } from './signature.js';
import {
  checkTimestamp,
  clockSeconds,
  DEFAULT_MAX_AGE_SECONDS,
  DEFAULT_MAX_FUTURE_SKEW_SECONDS,
  windowOption,
  type Clock,
} from './window.js';

/** Options of `signRequest`. */
export interface SignRequestOptions {
  /** The app private key: a `KeyObject` (fastest), PEM text, DER bytes or a file path. */
  privateKey: KeyInput;
  /** appid of the authorized mini-program. */
  appid: string;
  /** Version of the uploaded app public key (key settings page). */
  keyVersion: string | number;
  /** HTTP method. */
  method: string;
  /** Path and query, or the absolute URL; signed as fetch sends it (`京` as `%E4%BA%AC`, a blank as `%20`). */
  url: string;
  /** The body: text or bytes as sent, or a value serialized once here with `JSON.stringify`. @default empty */
  body?: RawBody | object;
  /** Seconds since 1970. @default now */
  timestamp?: number | string;
  /** @default 32 hex characters from the CSPRNG */
  nonce?: string;
}

/** What `signRequest` gives. */
export interface SignedRequest {
  /** The `Platform-Authorization` header value. */
  authorization: string;
  /** The path and query that were signed, as fetch sends them; a client that does not encode URLs itself must send this. */
  path: string;
  /** The body that was signed: send exactly this (text as UTF-8). */
  body: string | Buffer;
  timestamp: string;
  nonce: string;
  /** Base64 signature. */
  signature: string;
  /** The five signed lines (a byte body shown as UTF-8). */
  stringToSign: string;
}

/**
 * Signs a request with the app private key (SHA256 with RSA, PKCS#1 v1.5, base64). With a
 * `KeyObject` the only work beyond `crypto.sign` is building the five lines and the header.
 * @example
 * const signed = signRequest({ privateKey, appid: 'wx123', keyVersion: '1', method: 'POST', url: '/v1/videos', body: { title: '你好' } })
 * await fetch('https://api.example.com/v1/videos', { method: 'POST', body: signed.body,
 *   headers: { 'Platform-Authorization': signed.authorization, 'Content-Type': 'application/json' } })
 */
export function signRequest(options: SignRequestOptions): SignedRequest {
  const key = loadPrivateKey(options.privateKey);
  const timestamp =
    options.timestamp === undefined ? String(Math.floor(Date.now() / 1000)) : timestampText(options.timestamp);
  const nonce = options.nonce === undefined ? generateNonce() : nonceText(options.nonce);
  const body = sendableBody(options.body);
  const path = signedPath(options.url);
  const data = linesBytes(methodText(options.method), path, timestamp, nonce, body);
  const signature = sign('sha256', data, key).toString('base64');
  const authorization = formatCheckedAuthorization(
    options.appid,
    nonce,
    timestamp,
    String(options.keyVersion),
    signature,
  );
  return { authorization, path, body, timestamp, nonce, signature, stringToSign: data.toString('utf8') };
}

/** The body to sign and send: text and bytes as given, anything else serialized once. */
function sendableBody(body: SignRequestOptions['body']): string | Buffer {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return bodyBuffer(body);
  const json = JSON.stringify(body);
  if (json === undefined) throw new TypeError(`body must be text, bytes or a JSON value, got ${typeof body}`);
  return json;
}

/** Public keys by `key_version`, or a function finding one (it may be async). */
export type PublicKeys =
  | ReadonlyMap<string, KeyInput>
  | Readonly<Record<string, KeyInput>>
  | ((appid: string, keyVersion: string) => KeyInput | undefined | null | Promise<KeyInput | undefined | null>);

/** Options of `verifyRequest`. */
export interface VerifyRequestOptions {
  /** The `Platform-Authorization` header value as received. */
  authorization: string | null | undefined;
  method: string;
  /** The path and query as received (`req.url`), or an absolute URL; checked as given, never re-encoded. */
  url: string;
  /** The raw body as received; objects are refused. */
  body?: RawBody;
  /** The app public keys by key_version, or a resolver `(appid, keyVersion) => key`. */
  publicKeys: PublicKeys;
  /** The verifier's clock. @default Date.now */
  now?: Clock;
  /** Oldest accepted timestamp, in seconds. @default 3600 */
  maxAgeSeconds?: number;
  /** Furthest accepted timestamp ahead of `now`, in seconds. @default 300 */
  maxFutureSkewSeconds?: number;
  /**
   * Where nonces are remembered; `false` turns replay checks off.
   * @default a RedisNonceStore when `redis` or CLOUDFN_REDIS_URL (or REDIS_ADDRESS) is set, else a per-process MemoryNonceStore
   */
  nonceStore?: NonceStore | false;
  /** Redis for the default nonce store: a `redis://` URL or an ioredis client. @default CLOUDFN_REDIS_URL, then REDIS_ADDRESS */
  redis?: RedisOption;
}

/** What a valid request was signed with. */
export interface VerifiedRequest {
  appid: string;
  keyVersion: string;
  /** Seconds since 1970. */
  timestamp: number;
  nonce: string;
}

/**
 * Verifies a request as the platform does: header syntax, timestamp window, key_version, the
 * signature over the five lines, then replay (a nonce is only remembered once its signature
 * holds, so forged requests cannot burn nonces). Throws a `SignatureError` with a code.
 * @example
 * const { appid } = await verifyRequest({ authorization: req.headers['platform-authorization'], method: req.method,
 *   url: req.url, body: rawBody, publicKeys: { '1': appPublicKeyPem } })
 */
export function verifyRequest(options: VerifyRequestOptions): Promise<VerifiedRequest> {
  // Not an async function: with a key map and the memory store everything is synchronous, and
  // sparing the extra awaits keeps verification within a few percent of bare crypto.verify.
  try {
    const body = options.body;
    assertRawBody(body, 'body');
    const parts = parseAuthorization(options.authorization);
    const maxAge = windowOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_MAX_AGE_SECONDS);
    const maxFuture = windowOption(
      options.maxFutureSkewSeconds,
      'maxFutureSkewSeconds',
      DEFAULT_MAX_FUTURE_SKEW_SECONDS,
    );
    const now = clockSeconds(options.now);
    const checked: Checked = {
      parts,
      timestamp: checkTimestamp(parts.timestamp, now, maxAge, maxFuture),
      nonce: nonceField(parts.nonce),
      signature: checkSignatureText(parts.signature),
      now,
      ttl: maxAge + maxFuture,
    };
    const key = lookupPublicKey(options.publicKeys, parts.appid, parts.keyVersion);
    if (key instanceof Promise) return key.then((input) => finish(options, checked, input));
    return finish(options, checked, key);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What the synchronous checks of `verifyRequest` established. */
interface Checked {
  parts: AuthorizationParts;
  timestamp: number;
  nonce: string;
  signature: Buffer;
  now: number;
  ttl: number;
}

/** The signature over the five lines, then replay: a nonce is only recorded once its signature holds. */
function finish(
  options: VerifyRequestOptions,
  checked: Checked,
  input: KeyInput | undefined | null,
): Promise<VerifiedRequest> {
  const { parts, nonce } = checked;
  if (input === undefined || input === null) throw signError('SIGN_UNKNOWN_KEY_VERSION', parts.appid, parts.keyVersion);
  const key = loadPublicKey(input);
  const data = linesBytes(methodText(options.method), receivedPath(options.url), parts.timestamp, nonce, options.body);
  if (!verify('sha256', data, key, checked.signature)) {
    throw signError(
      'SIGN_BAD_SIGNATURE',
      'the five lines (method, path and query, timestamp, nonce, body) differ from what was signed, or the private key is not the pair of this key_version',
    );
  }
  const result: VerifiedRequest = {
    appid: parts.appid,
    keyVersion: parts.keyVersion,
    timestamp: checked.timestamp,
    nonce,
  };
  const store = options.nonceStore === undefined ? sharedNonceStore(options.redis) : options.nonceStore;
  if (store === false) return Promise.resolve(result);
  const seen = store.seen(`${parts.appid}:${nonce}`, checked.ttl, checked.now);
  if (seen instanceof Promise) {
    return seen.then((replayed) => {
      if (replayed) throw signError('SIGN_REPLAY', nonce);
      return result;
    });
  }
  if (seen) throw signError('SIGN_REPLAY', nonce);
  return Promise.resolve(result);
}

/** The key input for a key_version, or a promise of it from an async resolver. */
function lookupPublicKey(
  keys: PublicKeys,
  appid: string,
  keyVersion: string,
): KeyInput | undefined | null | Promise<KeyInput | undefined | null> {
  if (typeof keys === 'function') return keys(appid, keyVersion);
  if (keys instanceof Map) return keys.get(keyVersion);
  if (keys !== null && typeof keys === 'object') {
    return Object.hasOwn(keys, keyVersion) ? (keys as Readonly<Record<string, KeyInput>>)[keyVersion] : undefined;
  }
  throw new TypeError(
    `publicKeys must be a Map or object from key_version to key, or a function (appid, keyVersion) => key, got ${typeof keys}`,
  );
}
