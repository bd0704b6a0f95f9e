/**
 * The size of an RSA key in bits. Node ≥ 15.7 tells it (`asymmetricKeyDetails.modulusLength`);
 * Node 14, the platform's function service, does not, so there it is read from the key's
 * PKCS#1 DER (RFC 8017, A.1.1: `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

/** Reads a DER length at `at`; returns the length and where the content starts. */
function derLength(der: Buffer, at: number): { length: number; start: number } {
  const first = der[at]!;
  if (first < 0x80) return { length: first, start: at + 1 };
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + der[at + 1 + i]!;
  return { length, start: at + 1 + count };
}

/** Bits of the modulus in a PKCS#1 RSAPublicKey; 0 when the DER is not one. */
export function modulusBitsOfPkcs1(der: Buffer): number {
  if (der[0] !== 0x30) return 0;
  const sequence = derLength(der, 1);
  if (der[sequence.start] !== 0x02) return 0;
  const integer = derLength(der, sequence.start + 1);
  let start = integer.start;
  let length = integer.length;
  // A positive INTEGER whose top bit is set carries a leading zero byte.
  while (length > 0 && der[start] === 0) {
    start++;
    length--;
  }
  if (length === 0) return 0;
  return (length - 1) * 8 + (32 - Math.clz32(der[start]!));
}

/**
 * The modulus length of an RSA key (public or private) in bits; 0 for another key type.
 * @example rsaModulusLength(loadPrivateKey(pem)) // 2048
 */
export function rsaModulusLength(key: KeyObject): number {
  const details = (key as { asymmetricKeyDetails?: { modulusLength?: number } }).asymmetricKeyDetails;
  if (details !== undefined) return details.modulusLength ?? 0;
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') return 0;
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return modulusBitsOfPkcs1(publicKey.export({ type: 'pkcs1', format: 'der' }) as Buffer);
}
