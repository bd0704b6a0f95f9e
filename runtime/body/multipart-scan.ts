/**
 * A pass over a multipart body before busboy reads it, for what busboy gets wrong:
 * - it ignores `limits.headerPairs` (it keeps 2000 pairs and drops the rest silently);
 * - it keeps parsing parts after the closing delimiter, and a file part found there is
 *   never ended, so busboy waits for it forever; the body is therefore cut at the
 *   closing delimiter (what follows is the epilogue, which RFC 2046 says to ignore).
 * The whole body is already in memory, so this costs one Buffer#indexOf per delimiter. It
 * also notes where the content of each large part lies, so that busboy need not read it
 * (see multipart.ts).
 */
import { type CloudfnError, createError } from '../errors.js';
import { limitSource } from './limit-sources.js';
import type { Limits, LimitSources } from '../types.js';

const CRLF = Buffer.from('\r\n');
/** busboy refuses a part header block longer than this (node's default header size). */
const MAX_HEADER_BYTES = 16 * 1024;

/** Parts with at least this many content bytes are listed in `ScanResult.large`. */
export const LARGE_PART = 64 * 1024;

/** Where a part's content lies in the body: from `start` to the delimiter at `end`. */
export interface PartRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The outcome of the scan: a limit error, or the bytes busboy should read and the content
 * ranges of its parts of `LARGE_PART` bytes or more whose header block ends with a blank line.
 */
export type ScanResult =
  | { error: CloudfnError; body?: undefined; large?: undefined }
  | { error?: undefined; body: Buffer; large: PartRange[] };

/**
 * Counts parts and the header lines of each part as busboy will read them. Returns
 * CLOUDFN_MULTIPART_LIMIT for more than `maxParts` parts or more than `maxPartHeaderPairs`
 * header lines in a part; otherwise the body up to its closing delimiter (the whole body
 * when there is none: busboy then reports the truncation).
 * @example const { error, body } = scanMultipart(raw, 'XyZ', limits);
 */
export function scanMultipart(body: Buffer, boundary: string, limits: Limits, sources?: LimitSources): ScanResult {
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // busboy reads the body as if it began with CRLF, so the first delimiter may lack one.
  const opening = delimiter.subarray(2);
  let at = body.subarray(0, opening.length).equals(opening) ? -2 : body.indexOf(delimiter);
  let parts = 0;
  const large: PartRange[] = [];
  while (at !== -1) {
    const pos = at + delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return { body: body.subarray(0, pos + 2), large };
    const next = body.indexOf(delimiter, pos);
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) {
      parts++;
      if (parts > limits.maxParts)
        return {
          error: createError('CLOUDFN_MULTIPART_LIMIT', 'maxParts', limits.maxParts, limitSource(sources, 'maxParts')),
        };
      const end = Math.min(next === -1 ? body.length : next, pos + 2 + MAX_HEADER_BYTES);
      const header = readHeaderBlock(body, pos + 2, end);
      if (header.lines > limits.maxPartHeaderPairs) {
        return {
          error: createError(
            'CLOUDFN_MULTIPART_LIMIT',
            'maxPartHeaderPairs',
            limits.maxPartHeaderPairs,
            limitSource(sources, 'maxPartHeaderPairs'),
          ),
        };
      }
      if (header.contentStart !== -1 && next !== -1 && next - header.contentStart >= LARGE_PART)
        large.push({ start: header.contentStart, end: next });
    }
    at = next;
  }
  return { body, large };
}

/**
 * Header lines from `pos` to the blank line (or `end`); folded lines continue a header.
 * `contentStart` is the first byte after the blank line, or -1 when there is none before `end`.
 */
function readHeaderBlock(body: Buffer, pos: number, end: number): { lines: number; contentStart: number } {
  let lines = 0;
  while (pos < end) {
    const eol = body.indexOf(CRLF, pos);
    if (eol === -1) break; // the end of the body
    if (eol === pos) return { lines, contentStart: pos + 2 }; // the blank line
    if (body[pos] !== 0x20 && body[pos] !== 0x09) lines++;
    pos = eol + 2;
  }
  return { lines, contentStart: -1 };
}
