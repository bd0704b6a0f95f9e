/**
 * Types for busboy's own header parsers (busboy/lib/utils.js, not typed by @types/busboy), which
 * multipart-scan.ts uses so that its checks read a part's headers exactly as busboy does.
 */
declare module 'busboy/lib/utils.js' {
  /** A Content-Disposition value: its type (lower case) and its parameters, decoded. */
  interface Disposition {
    type: string;
    params: Record<string, string>;
  }
  type Decoder = (text: string, hint: number) => string;
  const utils: {
    /** undefined when the value cannot be parsed: busboy then skips the part. */
    parseDisposition(value: string, decoder: Decoder): Disposition | undefined;
    getDecoder(charset: string): Decoder;
  };
  export = utils;
}
