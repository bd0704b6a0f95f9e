/** Checks shared by the verifiers: the nonce and the base64 signature as received. */
import { signError } from './errors.js';
import { nonceText } from './string-to-sign.js';

/** An RSA-2048 signature is 256 bytes, 344 base64 characters with padding. */
const SIGNATURE_BYTES = 256;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Where `signatureView` decodes: `crypto.verify` reads the signature before it returns, so one
 * Buffer serves every call and a verify allocates none for its signature.
 */
const scratch = Buffer.allocUnsafeSlow(SIGNATURE_BYTES);

/**
 * `checkSignatureText` decoding into a Buffer shared by every call: valid until the next call
 * only, for a verify that reads it at once (not across an await). Its fast path writes into the
 * shared Buffer, 0.07 µs less than `Buffer.from` on Node 24, and no 256 bytes of node's pool.
 */
export function signatureView(text: string): Buffer {
  // The conditions of checkSignatureText's fast path, below: 344 characters, `==`, no base64url.
  // The decoder cannot give more than 256 bytes from 342 characters, so a write of exactly 256
  // into 256 bytes is the case where `Buffer.from` gives 256.
  if (
    text.length === 344 &&
    text.charCodeAt(343) === 61 /* = */ &&
    text.charCodeAt(342) === 61 &&
    !text.includes('-') &&
    !text.includes('_') &&
    scratch.write(text, 0, SIGNATURE_BYTES, 'base64') === SIGNATURE_BYTES
  ) {
    return scratch;
  }
  return checkSignatureText(text);
}

/** Decodes a base64 signature, refusing other alphabets and lengths with a reason. */
export function checkSignatureText(text: string): Buffer {
  // Fast path without scanning the alphabet: 344 characters ending in '==' that decode to 256
  // bytes must be 342 decodable characters and the padding, since node's decoder skips what is
  // not base64 and 342 characters are needed for 256 bytes. Its decoder also reads base64url
  // ('-', '_'), which the scheme does not allow: two searches rule it out. 0.17 µs against
  // 0.49 µs for the regular expression over 344 characters it replaced. Anything else takes
  // the checks below, which say what is wrong.
  if (
    text.length === 344 &&
    text.charCodeAt(343) === 61 /* = */ &&
    text.charCodeAt(342) === 61 &&
    !text.includes('-') &&
    !text.includes('_')
  ) {
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
