/**
 * Decoding a body by the charset of its Content-Type (WHATWG Encoding labels: utf-8, gbk,
 * gb18030, shift_jis, latin1, utf-16le, ...). Decoding is strict: bytes that are not valid in
 * the charset are reported instead of silently replaced by U+FFFD.
 */
import { createError } from '../errors.js';

// A builtin through process.getBuiltinModule rather than an ESM import, which builds a namespace
// from every export of the module: node:util, node:buffer and node:stream imported that way cost
// 0.7 ms of each cold start (node 20, after node:http), taken this way 0.1 ms.
const { isUtf8 } = process.getBuiltinModule('node:buffer');
const { TextDecoder } = process.getBuiltinModule('node:util');
type TextDecoder = InstanceType<typeof TextDecoder>;

/** Decoders by label, made once: only labels TextDecoder accepted get here, a finite set. */
const decoders = new Map<string, TextDecoder>();

/**
 * Decodes `body` as `charset` (utf-8 when undefined), dropping a leading byte order mark.
 * Returns `undefined` when the bytes are not valid in that charset; throws
 * CLOUDFN_BAD_CHARSET (415) for a charset it does not know.
 * @example decodeText(Buffer.from([0xc4, 0xe3]), 'gbk') // '你'
 */
export function decodeText(body: Buffer, charset: string | undefined): string | undefined {
  if (charset === undefined || isUtf8Label(charset)) {
    // isUtf8 + toString is several times faster than a fatal TextDecoder for utf-8.
    if (!isUtf8(body)) return undefined;
    const text = body.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  const decoder = decoderFor(charset);
  try {
    return decoder.decode(body);
  } catch {
    return undefined;
  }
}

/**
 * The canonical name of a charset label (`latin1` is `windows-1252`), for messages.
 * @example charsetName(undefined) // 'utf-8'
 */
export function charsetName(charset: string | undefined): string {
  return charset === undefined || isUtf8Label(charset) ? 'utf-8' : decoderFor(charset).encoding;
}

function isUtf8Label(charset: string): boolean {
  const c = charset.toLowerCase();
  return c === 'utf-8' || c === 'utf8';
}

function decoderFor(charset: string): TextDecoder {
  const label = charset.trim().toLowerCase();
  let decoder = decoders.get(label);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(label, { fatal: true });
    } catch {
      throw createError('CLOUDFN_BAD_CHARSET', JSON.stringify(charset.slice(0, 40)));
    }
    decoders.set(label, decoder);
  }
  return decoder;
}
