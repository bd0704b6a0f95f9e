/** Loading keys in every form users have them in, and refusing the ones the scheme cannot use. */
import { generateKeyPairSync, type KeyObject, sign as cryptoSign } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportKey,
  generateKeyPair,
  inspectKey,
  keyFingerprint,
  loadPrivateKey,
  loadPublicKey,
  SignatureError,
} from '../../src/sign/index.js';
import { opensslKeys, refusedKeys, type OpensslKeys } from './openssl.js';

let keys: OpensslKeys;
let refused: ReturnType<typeof refusedKeys>;
beforeAll(() => {
  keys = opensslKeys();
  refused = refusedKeys(keys.dir);
});
afterAll(() => keys.cleanup());

const data = Buffer.from('probe\n');
/** The private key signs exactly as openssl does with the original PKCS1 file. */
function signsLikeOpenssl(key: KeyObject): void {
  expect(key.type).toBe('private');
  expect(cryptoSign('sha256', data, key).toString('base64')).toBe(keys.sign(data));
}
function codeOf(call: () => unknown): string | undefined {
  try {
    call();
  } catch (error) {
    return error instanceof SignatureError ? error.code : `${(error as Error).name}: ${(error as Error).message}`;
  }
  return undefined;
}
const body = (pem: string) =>
  pem
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----'))
    .join('');

describe('loadPrivateKey accepts', () => {
  const forms: Array<[string, () => string | Buffer | Uint8Array | KeyObject]> = [
    ['PKCS1 PEM', () => keys.pkcs1],
    ['PKCS8 PEM', () => keys.pkcs8],
    ['a file path', () => keys.path.pkcs8],
    [
      'a file path with a blank',
      () => {
        const file = join(keys.dir, 'Jane Doe key.pem');
        writeFileSync(file, keys.pkcs1);
        return file;
      },
    ],
    ['PEM bytes read from a file', () => Buffer.from(keys.pkcs1)],
    ['PKCS8 DER bytes', () => keys.der],
    ['PKCS1 DER bytes', () => keys.derPkcs1],
    ['a Uint8Array of DER', () => new Uint8Array(keys.der)],
    ['CRLF line ends', () => keys.pkcs1.replace(/\n/g, '\r\n')],
    ['a BOM and blanks around', () => '\uFEFF  \n\t' + keys.pkcs8 + '\n\n  '],
    ['\\n written as backslash-n (env var)', () => keys.pkcs8.replace(/\n/g, '\\n')],
    ['\\r\\n written as backslashes', () => keys.pkcs1.replace(/\n/g, '\\r\\n')],
    ['armour and base64 flattened onto one line', () => keys.pkcs1.replace(/\n/g, ' ')],
    [
      'indented lines',
      () =>
        keys.pkcs8
          .split('\n')
          .map((l) => '    ' + l)
          .join('\n'),
    ],
    ['bare base64 without armour', () => body(keys.pkcs8)],
    ['bare base64 of PKCS1 without armour', () => body(keys.pkcs1)],
    ['a KeyObject', () => loadPrivateKey(keys.pkcs1)],
  ];
  for (const [name, input] of forms) {
    it(name, () => signsLikeOpenssl(loadPrivateKey(input())));
  }

  it('a KeyObject made by node is returned as is', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(loadPrivateKey(privateKey)).toBe(privateKey);
    expect(loadPrivateKey(privateKey)).toBe(privateKey);
  });

  it('the same text twice gives the same parsed KeyObject', () => {
    expect(loadPrivateKey(keys.pkcs8)).toBe(loadPrivateKey(keys.pkcs8));
  });
});

describe('loadPublicKey accepts', () => {
  const forms: Array<[string, () => string | Buffer | KeyObject]> = [
    ['SPKI PEM', () => keys.spki],
    ['PKCS1 RSA PUBLIC KEY PEM', () => keys.rsaPublic],
    ['SPKI DER bytes', () => keys.publicDer],
    ['a file path', () => keys.path.spki],
    ['bare base64 SPKI', () => body(keys.spki)],
    ['CRLF and backslash-n', () => keys.spki.replace(/\n/g, '\\n')],
    ['a private key (its public half)', () => keys.pkcs1],
    ['a private KeyObject', () => loadPrivateKey(keys.pkcs8)],
  ];
  for (const [name, input] of forms) {
    it(name, () => {
      const key = loadPublicKey(input());
      expect(key.type).toBe('public');
      expect(keyFingerprint(key)).toBe('sha256:' + keys.fingerprint);
    });
  }
});

describe('keys the scheme cannot use are refused, saying what was found', () => {
  it('a 1024-bit RSA key', () => {
    expect(() => loadPrivateKey(refused.rsa1024)).toThrow('got a 1024-bit RSA key; the scheme needs 2048 bits');
    expect(codeOf(() => loadPublicKey(refused.rsa1024))).toBe('SIGN_KEY_SIZE');
  });
  it('a 4096-bit RSA key', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 4096 });
    expect(() => loadPrivateKey(privateKey)).toThrow('got a 4096-bit RSA key');
  });
  it('an EC key', () => {
    expect(() => loadPrivateKey(refused.ec)).toThrow(/got an EC \(prime256v1\) key; the scheme needs an RSA key/);
    expect(codeOf(() => loadPublicKey(refused.ec))).toBe('SIGN_KEY_TYPE');
  });
  it('an RSA-PSS key', () => {
    expect(() => loadPrivateKey(refused.pss)).toThrow(/got an RSA-PSS key/);
    expect(codeOf(() => loadPrivateKey(refused.pss))).toBe('SIGN_KEY_TYPE');
  });
  it('an Ed25519 key', () => {
    expect(() => loadPrivateKey(refused.ed25519)).toThrow(/got an ED25519 key/);
  });
  it('a public key where a private key is needed', () => {
    expect(() => loadPrivateKey(keys.spki)).toThrow(/got a public key \(PUBLIC KEY\); signing needs the private key/);
    expect(() => loadPrivateKey(keys.publicDer)).toThrow(/got a public key/);
    expect(() => loadPrivateKey(loadPublicKey(keys.spki))).toThrow(/got a public key/);
  });
  it('an encrypted key', () => {
    expect(() =>
      loadPrivateKey('-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n'),
    ).toThrow(/encrypted; decrypt it once/);
  });
  it('a missing file, a truncated PEM, garbage', () => {
    expect(() => loadPrivateKey('keys/missing.pem')).toThrow(/"keys\/missing.pem" is neither a file nor PEM text/);
    expect(() => loadPrivateKey(keys.pkcs8.slice(0, 200))).toThrow(/BEGIN line without a matching END line/);
    expect(codeOf(() => loadPrivateKey(Buffer.from([0x30, 1, 2, 3])))).toBe('SIGN_BAD_KEY');
    expect(codeOf(() => loadPrivateKey(''))).toBe('SIGN_BAD_KEY');
    expect(codeOf(() => loadPrivateKey(42 as unknown as string))).toMatch(/^TypeError: a key must be PEM text/);
  });
});

describe('key tools', () => {
  it('fingerprints equal openssl dgst over the SPKI DER, for both halves', () => {
    expect(keyFingerprint(keys.pkcs1)).toBe('sha256:' + keys.fingerprint);
    expect(keyFingerprint(keys.rsaPublic)).toBe('sha256:' + keys.fingerprint);
  });
  it('converts between PKCS1, PKCS8 and SPKI as openssl writes them', () => {
    expect(exportKey(keys.pkcs1, 'pkcs8')).toBe(keys.pkcs8);
    expect(exportKey(keys.pkcs8, 'pkcs1')).toBe(keys.pkcs1);
    expect(exportKey(keys.pkcs8, 'spki')).toBe(keys.spki);
    expect(exportKey(keys.rsaPublic, 'spki')).toBe(keys.spki);
    expect(() => exportKey(keys.spki, 'pkcs8')).toThrow(/got a public key/);
  });
  it('generates a 2048-bit pair in PKCS8 or PKCS1 with SPKI public key', () => {
    const pair = generateKeyPair();
    expect(pair.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(pair.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(keyFingerprint(pair.privateKeyPem)).toBe(pair.fingerprint);
    expect(generateKeyPair({ pkcs1: true }).privateKeyPem).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
  });
  it('inspects what a key is and what is wrong with it', () => {
    expect(inspectKey(keys.path.pkcs1)).toMatchObject({
      ok: true,
      kind: 'private',
      encoding: 'pkcs1',
      format: 'pem',
      type: 'rsa',
      bits: 2048,
      fingerprint: 'sha256:' + keys.fingerprint,
    });
    expect(inspectKey(keys.spki)).toMatchObject({ ok: true, kind: 'public', encoding: 'spki' });
    expect(inspectKey(keys.spki).notes.join()).toMatch(/text to upload/);
    expect(inspectKey(keys.der)).toMatchObject({ ok: true, kind: 'private', encoding: 'pkcs8', format: 'der' });
    expect(inspectKey(keys.derPkcs1)).toMatchObject({ ok: true, kind: 'private', encoding: 'pkcs1', format: 'der' });
    expect(inspectKey(keys.publicDer)).toMatchObject({ ok: true, kind: 'public', encoding: 'spki', format: 'der' });
    expect(inspectKey(keys.pkcs8.replace(/\n/g, '\r\n')).notes.join()).toMatch(/CRLF/);
    expect(inspectKey(body(keys.spki))).toMatchObject({ ok: true, format: 'base64', encoding: 'spki' });
    const rsaPublic = inspectKey(keys.rsaPublic);
    expect(rsaPublic).toMatchObject({ ok: false, kind: 'public', encoding: 'pkcs1' });
    expect(rsaPublic.problems.join()).toMatch(/--to spki/);
    expect(inspectKey(refused.rsa1024)).toMatchObject({
      ok: false,
      bits: 1024,
      problems: ['got a 1024-bit RSA key; the scheme needs 2048 bits: openssl genrsa -out app_private_key.pem 2048'],
    });
    expect(inspectKey(refused.pss)).toMatchObject({ ok: false, type: 'rsa-pss' });
    const file = join(keys.dir, 'junk.pem');
    writeFileSync(file, 'hello');
    expect(inspectKey(file).ok).toBe(false);
  });
});
