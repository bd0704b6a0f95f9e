/**
 * What `cloudfn build` bundles in place of iconv-lite when raw-body imports it: raw-body needs
 * only `getDecoder`, and only when asked to decode (cloudfn's runtime never asks), yet iconv-lite
 * with its tables is 490 kB minified. Node decodes the same encodings itself: its Buffer
 * encodings through StringDecoder, the WHATWG ones (utf-8, gbk, gb18030, big5, shift_jis,
 * euc-kr, windows-125x, iso-8859-x, utf-16be...) through TextDecoder, which node's full ICU
 * provides. An encoding neither knows fails with iconv-lite's own message, which raw-body turns
 * into its 415 `encoding.unsupported`. See docs/build.md.
 */
import { StringDecoder } from 'node:string_decoder';
import { TextDecoder } from 'node:util';

/** The decoder raw-body drives: `write` each chunk, then `end`. */
export interface Decoder {
  write(chunk: Buffer): string;
  end(): string | undefined;
}

/**
 * A streaming decoder for `encoding`. Throws `Encoding not recognized: '<name>'` when node
 * knows no such encoding (the message raw-body matches).
 * @example getDecoder('gbk').write(Buffer.from([0xc4, 0xe3]))
 */
export function getDecoder(encoding: string): Decoder {
  const name = String(encoding).toLowerCase();
  if (name !== 'utf8' && name !== 'utf-8' && Buffer.isEncoding(name)) {
    const decoder = new StringDecoder(name);
    return { write: (chunk) => decoder.write(chunk), end: () => decoder.end() || undefined };
  }
  let decoder: TextDecoder;
  try {
    // iconv-lite strips a BOM by default, as TextDecoder does.
    decoder = new TextDecoder(name);
  } catch {
    throw new Error(`Encoding not recognized: '${encoding}' (searched as: '${name}')`);
  }
  return {
    write: (chunk) => decoder.decode(chunk, { stream: true }),
    end: () => decoder.decode() || undefined,
  };
}

export default { getDecoder };
