/**
 * A pass over a multipart body before busboy reads it, for the limits busboy cannot report:
 * busboy 1.6 ignores `limits.headerPairs` (it keeps 2000 pairs and drops the rest silently).
 * The whole body is already in memory, so counting parts and header lines costs one
 * Buffer#indexOf per delimiter.
 */
import { type CloudfnError, createError } from '../errors.js';
import type { Limits } from '../types.js';

const CRLF = Buffer.from('\r\n');
/** busboy refuses a part header block longer than this (node's default header size). */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Returns CLOUDFN_MULTIPART_LIMIT when the body has more than `maxParts` parts or a part has
 * more than `maxPartHeaderPairs` header lines; `undefined` otherwise. Malformed bodies are
 * left to busboy, which reports them.
 * @example checkPartHeaders(body, 'XyZ', limits) // undefined when within limits
 */
export function checkPartHeaders(body: Buffer, boundary: string, limits: Limits): CloudfnError | undefined {
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // busboy reads the body as if it began with CRLF, so the first delimiter may lack one.
  const opening = delimiter.subarray(2);
  let at = body.subarray(0, opening.length).equals(opening) ? -2 : body.indexOf(delimiter);
  let parts = 0;
  while (at !== -1) {
    let pos = at + delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return undefined; // the closing delimiter
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) {
      parts++;
      if (parts > limits.maxParts) return createError('CLOUDFN_MULTIPART_LIMIT', 'maxParts', limits.maxParts);
      pos += 2;
      const headerEnd = Math.min(body.length, pos + MAX_HEADER_BYTES);
      let pairs = 0;
      while (pos < headerEnd) {
        const eol = body.indexOf(CRLF, pos);
        if (eol === -1 || eol === pos) break; // the end of the body, or the blank line
        // A line starting with a space or tab continues the previous header (obs-fold).
        if (body[pos] !== 0x20 && body[pos] !== 0x09) pairs++;
        if (pairs > limits.maxPartHeaderPairs) {
          return createError('CLOUDFN_MULTIPART_LIMIT', 'maxPartHeaderPairs', limits.maxPartHeaderPairs);
        }
        pos = eol + 2;
      }
    }
    at = body.indexOf(delimiter, pos);
  }
  return undefined;
}
