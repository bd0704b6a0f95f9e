/**
 * Loading keys (platform contract, Signing): PEM in any of the four armours, DER bytes, bare
 * base64, a file path or a `KeyObject`, tolerant of what copy-paste and env vars do to PEM
 * text, and strict about what the scheme needs: RSA, 2048 bits.
 */
import { createPrivateKey, createPublicKey, KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { signError } from './errors.js';
import { rsaModulusLength } from './modulus-length.js';

/** What `loadPrivateKey` and `loadPublicKey` accept. */
export type KeyInput = string | Buffer | Uint8Array | KeyObject;

/**
 * The modulus size the scheme fixes (platform contract, Signing).
 * @example generateKeyPairSync('rsa', { modulusLength: KEY_BITS })
 */
export const KEY_BITS = 2048;

/**
 * KeyObjects that already passed the RSA-2048 check. A WeakSet lookup is what lets signing with a
 * KeyObject cost no more than bare `crypto.sign`: `asymmetricKeyDetails` allocates on every read.
 */
const checked = new WeakSet<KeyObject>();

/**
 * Parsed keys by their text (or path), one map per side. Parsing a PEM per call makes signing
 * 3.4× and verifying 5–6× slower on node 20, so text inputs are parsed once. Bounded so a
 * stream of distinct keys cannot grow them without end.
 */
const parsed = { private: new Map<string, KeyObject>(), public: new Map<string, KeyObject>() };
const PARSED_MAX = 64;

/**
 * Parses a private key for signing and checks it is a 2048-bit RSA key. Accepts PKCS1
 * (`RSA PRIVATE KEY`) or PKCS8 (`PRIVATE KEY`) PEM, DER bytes, bare base64, a file path or a
 * `KeyObject`; tolerates CRLF, a BOM, blanks around and `\n` written as backslash-n. Text inputs
 * are cached, so passing the same PEM again costs a map lookup.
 * @example const key = loadPrivateKey(process.env.APP_PRIVATE_KEY!)
 */
export function loadPrivateKey(input: KeyInput): KeyObject {
  if (input instanceof KeyObject && checked.has(input)) {
    if (input.type !== 'private')
      throw signError('SIGN_BAD_KEY', `got a ${input.type} key; signing needs the private key (app_private_key.pem)`);
    return input;
  }
  return load(input, 'private');
}

/**
 * Parses a public key for verifying and checks it is a 2048-bit RSA key. Accepts SPKI
 * (`PUBLIC KEY`) or PKCS1 (`RSA PUBLIC KEY`) PEM, DER bytes, bare base64, a file path or a
 * `KeyObject`; a private key gives its public half.
 * @example const platformKey = loadPublicKey('keys/platform_public_key.pem')
 */
export function loadPublicKey(input: KeyInput): KeyObject {
  if (input instanceof KeyObject && checked.has(input)) {
    return input.type === 'public' ? input : derivePublic(input);
  }
  return load(input, 'public');
}

const derived = new WeakMap<KeyObject, KeyObject>();
function derivePublic(key: KeyObject): KeyObject {
  let pub = derived.get(key);
  if (pub === undefined) {
    pub = createPublicKey(key);
    checked.add(pub);
    derived.set(key, pub);
  }
  return pub;
}

function load(input: KeyInput, want: 'private' | 'public'): KeyObject {
  if (input instanceof KeyObject) {
    assertRsa2048(input);
    checked.add(input);
    if (want === 'private') return loadPrivateKey(input);
    return loadPublicKey(input);
  }
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    throw new TypeError(`a key must be PEM text, DER bytes, a file path or a KeyObject, got ${describe(input)}`);
  }
  const cache = parsed[want];
  const cacheKey =
    typeof input === 'string'
      ? input
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('latin1');
  const hit = cache.get(cacheKey);
  if (hit !== undefined) return hit;
  const parsedKey = parse(input, want);
  assertRsa2048(parsedKey);
  checked.add(parsedKey);
  const key = want === 'public' && parsedKey.type === 'private' ? derivePublic(parsedKey) : parsedKey;
  if (cache.size >= PARSED_MAX) cache.delete(cache.keys().next().value!);
  cache.set(cacheKey, key);
  return key;
}

/** Reads any accepted input into a KeyObject of the wanted side, without the size check. */
export function parse(input: string | Uint8Array, want: 'private' | 'public'): KeyObject {
  if (typeof input !== 'string') {
    const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    // PEM read from a file arrives as bytes too; DER always starts with a SEQUENCE (0x30).
    if (bytes[0] !== 0x30) return parseText(bytes.toString('utf8'), want, false);
    return parseDer(bytes, want);
  }
  return parseText(input, want, true);
}

function parseText(raw: string, want: 'private' | 'public', mayBePath: boolean): KeyObject {
  let text = raw.replace(/^\uFEFF/, '').trim();
  if (text === '')
    throw signError('SIGN_BAD_KEY', 'the key text is empty; pass the PEM text, a file path or a KeyObject');
  if (text.includes('-----BEGIN')) return parsePem(text, want);
  // A path may hold blanks ("/Users/Jane Doe/app.pem"); base64 or PEM text never fits on one short line.
  if (mayBePath && text.length < 4096 && !/[\r\n]/.test(text) && isFile(text)) {
    return parse(readFileSync(text), want);
  }
  text = text.replace(/\\[rn]|\s/g, '');
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length >= 64) {
    return parseDer(Buffer.from(text, 'base64'), want);
  }
  const shown = raw.length > 60 ? raw.slice(0, 57) + '...' : raw;
  throw signError(
    'SIGN_BAD_KEY',
    mayBePath && raw.length < 1024 && !raw.includes('\n')
      ? `${JSON.stringify(shown)} is neither a file nor PEM text; check the path, or pass the text from -----BEGIN to -----END`
      : `${JSON.stringify(shown)} is not PEM, base64 DER or a key file; pass the text from -----BEGIN to -----END`,
  );
}

/** Whether `path` names a regular file. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const ARMOUR = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/**
 * Rebuilds the PEM from its label and base64 so that CRLF, literal `\n`, indentation, a key
 * flattened onto one line by an env var, or stray blanks all parse the same.
 */
function parsePem(text: string, want: 'private' | 'public'): KeyObject {
  const match = ARMOUR.exec(text.replace(/\\r\\n|\\n|\\r/g, '\n'));
  if (match === null)
    throw signError(
      'SIGN_BAD_KEY',
      'the PEM text has a BEGIN line without a matching END line; copy the whole key, both armour lines included',
    );
  const label = match[1]!;
  const inner = match[2]!;
  if (label === 'ENCRYPTED PRIVATE KEY' || inner.includes('ENCRYPTED')) {
    throw signError(
      'SIGN_BAD_KEY',
      'the private key is encrypted; decrypt it once: openssl pkey -in key.pem -out app_private_key.pem',
    );
  }
  if (label === 'CERTIFICATE') {
    if (want === 'private')
      throw signError('SIGN_BAD_KEY', 'got a certificate; signing needs the private key (app_private_key.pem)');
  } else if (!KNOWN_LABELS.has(label)) {
    throw signError(
      'SIGN_BAD_KEY',
      `the PEM label "${label}" is not a key; use RSA PRIVATE KEY, PRIVATE KEY, PUBLIC KEY or RSA PUBLIC KEY`,
    );
  }
  const body = inner.replace(/\s/g, '');
  const pem = `-----BEGIN ${label}-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
  const isPrivate = label.includes('PRIVATE');
  if (want === 'private' && !isPrivate) {
    throw signError(
      'SIGN_BAD_KEY',
      `got a public key (${label}); signing needs the private key (app_private_key.pem), not the key you upload`,
    );
  }
  try {
    return isPrivate ? createPrivateKey(pem) : createPublicKey(pem);
  } catch (error) {
    throw signError(
      'SIGN_BAD_KEY',
      `the ${label} block does not decode (${(error as Error).message}); copy it again, whole`,
    );
  }
}

const KNOWN_LABELS = new Set(['RSA PRIVATE KEY', 'PRIVATE KEY', 'PUBLIC KEY', 'RSA PUBLIC KEY', 'EC PRIVATE KEY']);

function parseDer(der: Buffer, want: 'private' | 'public'): KeyObject {
  for (const type of ['pkcs8', 'pkcs1'] as const) {
    try {
      const key = createPrivateKey({ key: der, format: 'der', type });
      return key;
    } catch {
      // try the next encoding
    }
  }
  for (const type of ['spki', 'pkcs1'] as const) {
    let key: KeyObject | undefined;
    try {
      key = createPublicKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
    if (key === undefined) continue;
    if (want === 'private')
      throw signError(
        'SIGN_BAD_KEY',
        'got a public key; signing needs the private key (app_private_key.pem), not the key you upload',
      );
    return key;
  }
  throw signError(
    'SIGN_BAD_KEY',
    `${der.length} bytes of DER that are no ${want === 'private' ? 'PKCS8 or PKCS1 private' : 'SPKI or PKCS1 public'} key`,
  );
}

/** Throws unless `key` is a plain RSA key of 2048 bits, saying what was found. */
export function assertRsa2048(key: KeyObject): void {
  const type = key.asymmetricKeyType;
  if (type !== 'rsa') {
    if (key.type === 'secret') throw signError('SIGN_KEY_TYPE', 'a secret (symmetric) key');
    if (type === 'rsa-pss') throw signError('SIGN_KEY_TYPE', 'an RSA-PSS key (its PKCS#1 v1.5 signatures are refused)');
    const curve = key.asymmetricKeyDetails?.namedCurve;
    throw signError('SIGN_KEY_TYPE', `an ${String(type).toUpperCase()}${curve === undefined ? '' : ` (${curve})`} key`);
  }
  // Not asymmetricKeyDetails alone: Node 14 (the platform's function service) lacks it.
  const bits = rsaModulusLength(key);
  if (bits !== KEY_BITS) throw signError('SIGN_KEY_SIZE', bits);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'Object'})`;
  return `${typeof value} ${String(value)}`;
}
