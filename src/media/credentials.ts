/**
 * The options that say who the media client is and whom it trusts, declared and resolved
 * together: the token source, the key that signs every call, and the platform keys that verify
 * every answer. Each is given in code or read from its `CLOUDFN_MEDIA_*` env vars.
 */
import type { KeyObject } from 'node:crypto';
import { createPlatformKeyStore, loadPrivateKey, loadPublicKey } from '../sign/index.js';
import type { KeyInput, PlatformKeySource } from '../sign/index.js';
import { bad, text } from './option-readers.js';
import type { ClientTokenFetcher, TokenProvider, TokenSource } from './token.js';

/** The credential options of `createMediaClient` (part of MediaClientOptions). */
export interface CredentialOptions {
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
}

/** The signing key, loaded. */
export interface ResolvedSigning {
  appid: string | undefined;
  privateKey: KeyObject;
  keyVersion: string;
}

/** A PEM in an env var often has its line breaks written as `\n`. */
const unescapePem = (text: string): string => text.replace(/\\r\\n|\\n/g, '\n');

/** The token source: one of accessToken, tokenProvider and credentials in code, else from env. */
export function resolveToken(
  options: CredentialOptions,
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

/** Loads a key, turning a load failure into MEDIA_OPTIONS naming the option or variable. */
function key<T>(name: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw bad(name, (error as Error).message);
  }
}

/** The signing key of every call, from `signing` or the three signing variables; undefined when off. */
export function resolveSigning(
  options: CredentialOptions,
  env: Record<string, string | undefined>,
): ResolvedSigning | undefined {
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
  if (appid === undefined || pem === undefined || keyVersion === undefined) {
    const missing = [
      appid === undefined && 'CLOUDFN_MEDIA_APPID',
      pem === undefined && 'CLOUDFN_MEDIA_PRIVATE_KEY',
      keyVersion === undefined && 'CLOUDFN_MEDIA_KEY_VERSION',
    ].filter(Boolean);
    throw bad(String(missing[0]), `is empty while other signing variables are set; set ${missing.join(' and ')} too`);
  }
  return {
    appid,
    keyVersion,
    privateKey: key('CLOUDFN_MEDIA_PRIVATE_KEY', () => loadPrivateKey(unescapePem(pem))),
  };
}

/** The platform keys by appid, from `platformKeys` or a folder of `<appid>.pem`; not with a single public key. */
export function resolvePlatformKeys(
  options: CredentialOptions,
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

/**
 * The one platform public key that verifies every 2xx answer (one mini-program): given in code
 * or by `CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY`, as text or a key input.
 */
export function platformPublicKeyInput(
  options: CredentialOptions,
  env: Record<string, string | undefined>,
): KeyInput | undefined {
  return options.platformPublicKey ?? text(undefined, env, 'CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY');
}

/** Loads the key `platformPublicKeyInput` found, naming the option or variable when it is bad. */
export function loadPlatformPublicKey(options: CredentialOptions, input: KeyInput): KeyObject {
  return key(options.platformPublicKey === undefined ? 'CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY' : 'platformPublicKey', () =>
    loadPublicKey(typeof input === 'string' ? unescapePem(input) : input),
  );
}
