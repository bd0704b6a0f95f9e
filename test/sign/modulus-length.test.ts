/**
 * The RSA key size read without `asymmetricKeyDetails` (Node 14, the function service), checked
 * against the openssl CLI's keys and against Node's own answer.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertRsa2048 } from '../../src/sign/keys.js';
import { modulusBitsOfPkcs1, rsaModulusLength } from '../../src/sign/modulus-length.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudfn-modulus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function opensslKey(bits: number): KeyObject {
  const file = join(dir, `k${bits}.pem`);
  execFileSync('openssl', ['genrsa', '-out', file, String(bits)], { stdio: 'ignore' });
  return createPrivateKey(readFileSync(file));
}

/**
 * The key as Node 14 sees it: no asymmetricKeyDetails. An own property shadows the getter on the
 * same KeyObject (a Proxy would not do: Node 26's crypto refuses a wrapped key).
 */
function withoutDetails(key: KeyObject): KeyObject {
  Object.defineProperty(key, 'asymmetricKeyDetails', { value: undefined });
  expect(key.asymmetricKeyDetails).toBeUndefined();
  return key;
}

describe('rsaModulusLength without asymmetricKeyDetails', () => {
  it.each([1024, 2048, 2047, 3072])('reads %i bits as openssl made them', (bits) => {
    const key = opensslKey(bits);
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(bits);
    expect(createPublicKey(key).asymmetricKeyDetails?.modulusLength).toBe(bits);
    expect(rsaModulusLength(withoutDetails(key))).toBe(bits);
    expect(rsaModulusLength(withoutDetails(createPublicKey(key)))).toBe(bits);
  });

  it('lets a 2048-bit key through assertRsa2048 and names another size', () => {
    expect(() => assertRsa2048(withoutDetails(opensslKey(2048)))).not.toThrow();
    expect(() => assertRsa2048(withoutDetails(opensslKey(1024)))).toThrow(/1024/);
  });

  it('answers 0 for bytes that are not a PKCS#1 public key', () => {
    expect(modulusBitsOfPkcs1(Buffer.from([0x04, 0x01, 0x00]))).toBe(0);
    expect(modulusBitsOfPkcs1(Buffer.from([0x30, 0x03, 0x04, 0x01, 0x00]))).toBe(0);
  });
});
