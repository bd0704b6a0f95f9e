/**
 * A pass over a multipart body before busboy reads it, for what busboy gets wrong:
 * - it ignores `limits.headerPairs` (it keeps 2000 pairs and drops the rest silently);
 * - it keeps parsing parts after the closing delimiter, and a file part found there is
 *   never ended, so busboy waits for it forever; the body is therefore cut at the
 *   closing delimiter (what follows is the epilogue, which RFC 2046 says to ignore).
 * - it skips a part whose Content-Disposition it cannot parse (an unescaped `"` in a file name,
 *   as old browsers send it) silently: here that is CLOUDFN_BAD_MULTIPART naming the part, since
 *   the part's data would otherwise be lost with a 200;
 * - it takes a file part sent with `filename=""` and content for a text field, decoding its
 *   bytes as text: here such a part is noted (`emptyFilenames`) for multipart.ts to keep as a file;
 * - it passes a part with `Content-Transfer-Encoding: base64` (or quoted-printable) on as its
 *   encoded text: here that is CLOUDFN_BAD_MULTIPART (RFC 7578 §4.7: senders must not use it).
 * The whole body is already in memory, so this costs one Buffer#indexOf per delimiter. It
 * also notes where the content of each large part lies, so that busboy need not read it
 * (see multipart.ts).
 */
import busboyUtils from 'busboy/lib/utils.js';
import type { CloudfnError } from '../errors.js';
import { limitSource } from './limit-sources.js';
import type { Limits, LimitSources } from '../types.js';
import { createMultipartError } from './multipart-errors.js';

const CRLF = Buffer.from('\r\n');
/** busboy refuses a part header block longer than this (node's default header size). */
const MAX_HEADER_BYTES = 16 * 1024;

/** busboy's reading of parameter values, as multipart.ts configures it (`defParamCharset`). */
const paramDecoder = busboyUtils.getDecoder('utf8');

/** The transfer encodings that leave a part's bytes as they are (RFC 2045 §6.1). */
const IDENTITY_ENCODINGS: ReadonlySet<string> = new Set(['7bit', '8bit', 'binary']);

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
  | { error?: undefined; body: Buffer; large: PartRange[]; emptyFilenames: PartRange[] };

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
  // Where the `""` of each `filename=""` lies, for multipart.ts to mark (see the file's comment).
  const emptyFilenames: PartRange[] = [];
  while (at !== -1) {
    const pos = at + delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return { body: body.subarray(0, pos + 2), large, emptyFilenames };
    const next = body.indexOf(delimiter, pos);
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) {
      parts++;
      if (parts > limits.maxParts)
        return {
          error: createMultipartError(
            'CLOUDFN_MULTIPART_LIMIT',
            'maxParts',
            limits.maxParts,
            limitSource(sources, 'maxParts'),
          ),
        };
      const end = Math.min(next === -1 ? body.length : next, pos + 2 + MAX_HEADER_BYTES);
      const header = readHeaderBlock(body, pos + 2, end);
      if (header.lines > limits.maxPartHeaderPairs) {
        return {
          error: createMultipartError(
            'CLOUDFN_MULTIPART_LIMIT',
            'maxPartHeaderPairs',
            limits.maxPartHeaderPairs,
            limitSource(sources, 'maxPartHeaderPairs'),
          ),
        };
      }
      // A part whose headers do not end before the next delimiter is busboy's to refuse.
      if (header.contentStart !== -1) {
        const error = checkPartHeaders(body, header, parts, emptyFilenames);
        if (error !== undefined) return { error };
      }
      if (header.contentStart !== -1 && next !== -1 && next - header.contentStart >= LARGE_PART)
        large.push({ start: header.contentStart, end: next });
    }
    at = next;
  }
  return { body, large, emptyFilenames };
}

/**
 * The checks busboy does not make on a part's headers (see the file's comment). Returns the
 * error for a part busboy would drop or pass on encoded; notes a `filename=""` in
 * `emptyFilenames`.
 */
function checkPartHeaders(
  body: Buffer,
  header: HeaderBlock,
  part: number,
  emptyFilenames: PartRange[],
): CloudfnError | undefined {
  const encoding = header.transferEncoding;
  if (encoding !== undefined) {
    const value = body.toString('latin1', encoding.start, encoding.end).trim();
    if (!IDENTITY_ENCODINGS.has(value.toLowerCase()))
      return createMultipartError(
        'CLOUDFN_BAD_MULTIPART',
        `part ${part} has Content-Transfer-Encoding: ${JSON.stringify(value)}, which multipart/form-data does not use (RFC 7578 §4.7); send the part's bytes as they are, without the header`,
      );
  }
  const disposition = header.disposition;
  // A part without one names no field: left out, like a part without a name (docs/handlers.md).
  if (disposition === undefined) return undefined;
  const value = body.toString('latin1', disposition.start, disposition.end);
  const parsed = busboyUtils.parseDisposition(value.trim(), paramDecoder);
  if (parsed === undefined || parsed.type !== 'form-data')
    return createMultipartError(
      'CLOUDFN_BAD_MULTIPART',
      `part ${part} has a Content-Disposition that cannot be read: ${JSON.stringify(value.trim().slice(0, 200))}; send form-data; name="<field>"; filename="<file>" with '"' in a name written as %22`,
    );
  if (parsed.params['filename'] === '' && parsed.params['filename*'] === undefined) {
    // The last `filename=""` of the value: a name cannot contain one unescaped and still parse.
    const at = value.toLowerCase().lastIndexOf('filename=""');
    if (at !== -1) {
      const start = disposition.start + at + 'filename='.length;
      emptyFilenames.push({ start, end: start + 2 });
    }
  }
  return undefined;
}

/** A part's header block: its line count, where its content starts, and two headers' values. */
interface HeaderBlock {
  lines: number;
  /** The first byte after the blank line, or -1 when there is none before the block's end. */
  contentStart: number;
  /** The value of the first Content-Disposition line (as busboy reads the first). */
  disposition: PartRange | undefined;
  /** The value of the first Content-Transfer-Encoding line. */
  transferEncoding: PartRange | undefined;
}

const DISPOSITION = 'content-disposition:';
const TRANSFER_ENCODING = 'content-transfer-encoding:';

/** Header lines from `pos` to the blank line (or `end`); folded lines continue a header. */
function readHeaderBlock(body: Buffer, pos: number, end: number): HeaderBlock {
  const block: HeaderBlock = { lines: 0, contentStart: -1, disposition: undefined, transferEncoding: undefined };
  while (pos < end) {
    const eol = body.indexOf(CRLF, pos);
    if (eol === -1) break; // the end of the body
    if (eol === pos) {
      block.contentStart = pos + 2; // the blank line
      return block;
    }
    if (body[pos] !== 0x20 && body[pos] !== 0x09) {
      block.lines++;
      if (block.disposition === undefined && startsWithName(body, pos, eol, DISPOSITION))
        block.disposition = { start: pos + DISPOSITION.length, end: eol };
      else if (block.transferEncoding === undefined && startsWithName(body, pos, eol, TRANSFER_ENCODING))
        block.transferEncoding = { start: pos + TRANSFER_ENCODING.length, end: eol };
    }
    pos = eol + 2;
  }
  return block;
}

/** True when the line from `pos` to `eol` starts with `name` (lower case, with its colon), in any case. */
function startsWithName(body: Buffer, pos: number, eol: number, name: string): boolean {
  return eol - pos >= name.length && body.toString('latin1', pos, pos + name.length).toLowerCase() === name;
}
