/** Checks shared by the verifiers: the nonce and the base64 signature as received. */
import { signError } from './errors.js';
import { nonceText } from './string-to-sign.js';

/** An RSA-2048 signature is 256 bytes, 344 base64 characters with padding. */
const SIGNATURE_BYTES = 256;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes a base64 signature, refusing other alphabets and lengths with a reason. */
export function checkSignatureText(text: string): Buffer {
  // Fast path: the length and the alphabet, then decoding. Buffer.from(text, 'base64') also
  // decodes base64url ('-', '_'), which the scheme does not allow, so the alphabet is checked
  // first (one regular expression over 344 characters).
  if (text.length === 344 && BASE64.test(text)) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === SIGNATURE_BYTES) return bytes;
  }
  if (!BASE64.test(text)) {
    const hint = /[-_]/.test(text) ? ' (it looks like base64url: use standard base64 with + and /)' : '';
    throw signError('SIGN_BAD_SIGNATURE', `the signature is not standard base64${hint}`);
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== SIGNATURE_BYTES) {
    throw signError(
      'SIGN_BAD_SIGNATURE',
      `the signature decodes to ${bytes.length} bytes, an RSA-2048 signature has ${SIGNATURE_BYTES}`,
    );
  }
  return bytes;
}

/** A received nonce, as a `SignatureError` rather than a TypeError when it cannot be on its line. */
export function nonceField(nonce: string): string {
  try {
    return nonceText(nonce);
  } catch {
    throw signError('SIGN_BAD_NONCE', nonce);
  }
}
