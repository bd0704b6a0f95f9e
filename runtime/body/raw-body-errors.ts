/**
 * raw-body's errors in the runtime's terms: a body over its limit is 413, a client gone mid-body
 * the disconnect of the pipeline (499). raw-body reads only chunked bodies (read-body.ts reads
 * those of known length), so it never checks a Content-Length.
 * Imported with raw-body itself (read-body.ts), so it is there whenever raw-body calls back; a
 * process that only answers GET never loads it, and a bundle's start-up does not read it.
 */
import type { RawBodyError } from 'raw-body';

/**
 * The error a read ends with for raw-body's `error`: the read's own 413 (`tooLarge`) or a
 * disconnect (`abort`, read-body.ts's `clientAbort`).
 * @example translateRawBodyError(error, reader, clientAbort)
 */
export function translateRawBodyError(
  error: RawBodyError,
  read: { tooLarge(): Error },
  abort: (cause?: Error) => Error,
): Error {
  switch (error.type) {
    case 'entity.too.large':
      return read.tooLarge();
    case 'request.aborted':
      return abort(error);
    case 'stream.not.readable':
      // The connection closed while raw-body was being loaded.
      return abort(error);
    default:
      // A stream error (node's 'aborted' ECONNRESET, a socket error) is the client going away.
      return typeof error.type === 'string' ? error : abort(error);
  }
}
