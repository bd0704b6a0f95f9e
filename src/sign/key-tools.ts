/**
 * Key chores behind `cloudfn keys` and `cloudfn doctor`: generate a pair, convert between
 * PKCS1, PKCS8 and SPKI, inspect a key (kind, encoding, bits, fingerprint, what is wrong).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignatureError } from './errors.js';
import { assertRsa2048, isFile, KEY_BITS, loadPrivateKey, loadPublicKey, parse, type KeyInput } from './keys.js';
import { rsaModulusLength } from './modulus-length.js';

/** The encodings keys are written in. `spki` is the public key to upload. */
export type KeyEncoding = 'pkcs1' | 'pkcs8' | 'spki';

/**
 * The SHA-256 of the public key's SPKI DER, in hex: equal for a private key and its public
 * half, and what `openssl pkey -pubout -outform DER -in k.pem | openssl dgst -sha256` prints.
 * @example keyFingerprint('app_public_key.pem') // 'sha256:3f0c…'
 */
export function keyFingerprint(key: KeyInput): string {
  const der = loadPublicKey(key).export({ format: 'der', type: 'spki' });
  return 'sha256:' + createHash('sha256').update(der).digest('hex');
}

/**
 * Writes a key as PEM in the wanted encoding: `pkcs8` (`PRIVATE KEY`, Java-style runtimes and
 * node), `pkcs1` (`RSA PRIVATE KEY`, Go-style runtimes), or `spki` (`PUBLIC KEY`, the text to
 * upload; from a private key it gives the public half).
 * @example writeFileSync('app_public_key.pem', exportKey('app_private_key.pem', 'spki'))
 */
export function exportKey(key: KeyInput, to: KeyEncoding): string {
  if (to === 'spki') return loadPublicKey(key).export({ format: 'pem', type: 'spki' }) as string;
  if (to !== 'pkcs1' && to !== 'pkcs8')
    throw new TypeError(`a key converts to pkcs1, pkcs8 or spki, got ${JSON.stringify(to)}`);
  return loadPrivateKey(key).export({ format: 'pem', type: to }) as string;
}

/** A new app key pair, as PEM text. */
export interface GeneratedKeyPair {
  /** `PRIVATE KEY` (PKCS8), or `RSA PRIVATE KEY` (PKCS1) when asked. Never share it. */
  privateKeyPem: string;
  /** `PUBLIC KEY` (SPKI): the whole text, BEGIN to END lines, is what you upload. */
  publicKeyPem: string;
  fingerprint: string;
}

/**
 * Generates a 2048-bit RSA app key pair.
 * @example const { privateKeyPem, publicKeyPem } = generateKeyPair()
 */
export function generateKeyPair(options: { pkcs1?: boolean } = {}): GeneratedKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: KEY_BITS });
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: options.pkcs1 === true ? 'pkcs1' : 'pkcs8' }) as string,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }) as string,
    fingerprint: keyFingerprint(publicKey),
  };
}

/** What `inspectKey` found. */
export interface KeyReport {
  /** Whether the key is usable by the scheme as is. */
  ok: boolean;
  kind?: 'private' | 'public';
  /** `pkcs1`, `pkcs8`, `spki`, `sec1` (EC) or `certificate`. */
  encoding?: string;
  /** How it was written: PEM, DER bytes, bare base64, or a KeyObject. */
  format?: 'pem' | 'der' | 'base64' | 'keyobject';
  /** `rsa`, `rsa-pss`, `ec`, … */
  type?: string;
  bits?: number;
  fingerprint?: string;
  /** What stops it from working, each with the fix. */
  problems: string[];
  /** What was tolerated or is worth knowing. */
  notes: string[];
}

const LABELS: Record<string, [KeyReport['kind'], string]> = {
  'RSA PRIVATE KEY': ['private', 'pkcs1'],
  'PRIVATE KEY': ['private', 'pkcs8'],
  'EC PRIVATE KEY': ['private', 'sec1'],
  'PUBLIC KEY': ['public', 'spki'],
  'RSA PUBLIC KEY': ['public', 'pkcs1'],
  CERTIFICATE: ['public', 'certificate'],
};

/**
 * Reads a key without throwing and says what it is and what is wrong with it for the scheme.
 * @example inspectKey('app_private_key.pem') // { ok: true, kind: 'private', encoding: 'pkcs8', bits: 2048, … }
 */
export function inspectKey(input: KeyInput): KeyReport {
  const report: KeyReport = { ok: false, problems: [], notes: [] };
  let key: KeyObject;
  try {
    if (input instanceof KeyObject) {
      key = input;
      report.format = 'keyobject';
    } else {
      let bytes = typeof input === 'string' ? undefined : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
      if (
        typeof input === 'string' &&
        !input.includes('-----') &&
        input.length < 4096 &&
        !/[\r\n]/.test(input.trim()) &&
        isFile(input.trim())
      )
        bytes = readFileSync(input.trim());
      const source: string | Buffer = bytes ?? (input as string);
      describeText(source, report);
      key = parse(source, 'public');
    }
  } catch (error) {
    report.problems.push(error instanceof SignatureError || error instanceof TypeError ? error.message : String(error));
    return report;
  }
  report.kind = key.type === 'private' ? 'private' : 'public';
  report.type = key.asymmetricKeyType;
  report.bits = key.asymmetricKeyType === 'rsa' ? rsaModulusLength(key) : undefined;
  try {
    assertRsa2048(key);
    report.fingerprint = keyFingerprint(key);
  } catch (error) {
    report.problems.push((error as Error).message);
  }
  if (report.kind === 'public' && report.encoding === 'pkcs1') {
    report.problems.push(
      'the upload needs the SPKI encoding (BEGIN PUBLIC KEY), not BEGIN RSA PUBLIC KEY: cloudfn keys convert --in <file> --to spki',
    );
  }
  if (report.kind === 'public' && report.encoding === 'spki' && report.problems.length === 0) {
    report.notes.push('this is the text to upload: the whole PEM, BEGIN PUBLIC KEY through END PUBLIC KEY');
  }
  if (report.kind === 'private' && report.encoding === 'pkcs1')
    report.notes.push(
      'PKCS1 suits Go-style runtimes; Java-style runtimes need PKCS8: cloudfn keys convert --in <file> --to pkcs8',
    );
  if (report.kind === 'private' && report.encoding === 'pkcs8')
    report.notes.push(
      'PKCS8 suits node and Java-style runtimes; Go-style runtimes need PKCS1: cloudfn keys convert --in <file> --to pkcs1',
    );
  report.ok = report.problems.length === 0;
  return report;
}

function describeText(input: string | Buffer, report: KeyReport): void {
  if (Buffer.isBuffer(input) && input[0] === 0x30) {
    report.format = 'der';
    report.encoding = derEncoding(input);
    return;
  }
  const text = Buffer.isBuffer(input) ? input.toString('utf8') : input;
  if (text.startsWith('\uFEFF')) report.notes.push('starts with a byte order mark (tolerated)');
  if (text.includes('\r\n')) report.notes.push('has CRLF line ends (tolerated)');
  if (/\\n/.test(text))
    report.notes.push(
      'line breaks are written as \\n (tolerated; in a shell use double quotes, or keep the key in a file)',
    );
  const label = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(text)?.[1];
  if (label === undefined) {
    report.format = 'base64';
    report.notes.push('bare base64 without BEGIN/END lines (tolerated; the upload needs the full PEM)');
    report.encoding = derEncoding(Buffer.from(text.replace(/\\[rn]|\s/g, ''), 'base64'));
    return;
  }
  report.format = 'pem';
  report.encoding = LABELS[label]?.[1];
}

/** Names a DER encoding by trying each; undefined when none fits. */
function derEncoding(der: Buffer): string | undefined {
  const tries: Array<[string, () => unknown]> = [
    // Private first: createPublicKey also accepts private DER and derives the public half.
    ['pkcs8', () => createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })],
    ['pkcs1', () => createPrivateKey({ key: der, format: 'der', type: 'pkcs1' })],
    ['spki', () => createPublicKey({ key: der, format: 'der', type: 'spki' })],
    ['pkcs1', () => createPublicKey({ key: der, format: 'der', type: 'pkcs1' })],
  ];
  for (const [name, attempt] of tries) {
    try {
      attempt();
      return name;
    } catch {
      // try the next
    }
  }
  return undefined;
}
