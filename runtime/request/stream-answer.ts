/**
 * A stream a handler returned, sent as the answer: its head, the stream piped, a declared
 * Content-Length held to, and the request line once it ends. Imported by response.ts on the
 * first stream answer, so a function that never returns one never loads it (in a bundle, a
 * chunk; issue 44, item 4). A stream with a status below 200 or a Content-Length that is not a
 * byte count is destroyed, and response.ts answers it 500 (`sendStream`).
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TransformCallback } from 'node:stream';
import { createAnswerError } from './answer-errors.js';
import type { Exchange } from './exchange.js';
import { finish } from './finish.js';
import { lingerClose } from './linger.js';
import { BINARY, endHeadOnly, headersFor } from './response-head.js';

// A builtin through process.getBuiltinModule rather than an ESM import, which builds a namespace
// from every export of the module: node:util, node:buffer and node:stream imported that way cost
// 0.7 ms of each cold start (node 20, after node:http), taken this way 0.1 ms.
const { Transform } = process.getBuiltinModule('node:stream');

/** What a returned value needs to be sent as a stream. */
export interface ReadableLike {
  pipe<T extends NodeJS.WritableStream>(destination: T): T;
  unpipe?(destination: NodeJS.WritableStream): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy?(error?: Error): unknown;
}

/**
 * Checks the status and the declared length of a returned stream, then sends it. A bad one is
 * destroyed, and the error to answer (a 500, by response.ts's `sendError`) returned.
 * @example const failure = sendStream(x, createReadStream(file)); if (failure) sendError(x, failure)
 */
export function sendStream(x: Exchange, stream: ReadableLike): TypeError | undefined {
  const status = x.status;
  if (status < 200) {
    stream.destroy?.();
    return new TypeError(`status ${status} cannot be a final response; use service.status() with 200-599`);
  }
  const declared = declaredLength(x);
  if (declared === null) {
    stream.destroy?.();
    return new TypeError(
      `Content-Length ${JSON.stringify(x.headers!['content-length']![1])} is not a byte count; set a whole number, or none for a stream`,
    );
  }
  sendStreamAnswer(x, stream, declared);
  return undefined;
}

/**
 * The handler's Content-Length for a stream: undefined when it set none, null when it is not a
 * byte count.
 */
function declaredLength(x: Exchange): number | undefined | null {
  const header = x.headers?.['content-length'];
  if (header === undefined) return undefined;
  const text = String(header[1]).trim();
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/**
 * Sends `stream` as the answer, with `declared` the handler's Content-Length (undefined: none).
 * @example sendStreamAnswer(x, createReadStream(file), undefined)
 */
export function sendStreamAnswer(x: Exchange, stream: ReadableLike, declared: number | undefined): void {
  const status = x.status;
  if (!x.claim()) return;
  const res = x.res;
  if (status === 204 || status === 304) {
    stream.destroy?.();
    endHeadOnly(x, status);
    return;
  }
  let bytes = 0;
  const headers = headersFor(x, {
    contentType: BINARY,
    length: 'stream',
    handlerHeaders: true,
    close: x.host.closing,
    allow: false,
  });
  res.writeHead(status, headers as unknown as OutgoingHttpHeaders);
  // A stream answer waits on I/O anyway, so its listeners are closures: the sync path has none.
  stream.on('data', (chunk: unknown) => {
    bytes += (chunk as Buffer).length;
  });
  stream.on('error', (error: unknown) => {
    // The status line is gone: ending normally would pass a truncated body off as whole.
    x.line('error', `the returned stream failed after ${bytes} bytes: ${String(error)}`, {
      stack: (error as Error)?.stack,
    });
    res.destroy(error as Error);
  });
  let cut: string | undefined;
  let ended = false;
  // A response queued behind a pipelined one that closed the connection never gets a socket,
  // so never a 'close' of its own: the connection's close ends it (else it stays in flight).
  const socket = x.req.socket;
  const settle = (): void => {
    if (ended) return;
    ended = true;
    socket?.off('close', settle);
    finish(x, x.status, bytes, cut);
  };
  res.once('close', settle);
  socket?.once('close', settle);
  if (declared === undefined) {
    stream.pipe(res);
    return;
  }
  // A declared length is checked before bytes reach the socket: the chunk that would pass it is
  // never written, and a stream that ends short never ends the response, so the client always
  // sees a cut body, never a whole one followed by stray bytes.
  const check = new LengthCheck(declared);
  check.on('error', (error: Error) => {
    cut = `CLOUDFN_BAD_RESPONSE_LENGTH: ${error.message}`;
    x.line('error', `the response was cut: ${error.message}`, {
      code: 'CLOUDFN_BAD_RESPONSE_LENGTH',
    });
    stream.destroy?.();
    stream.unpipe?.(check);
    cutResponse(res);
  });
  stream.pipe(check).pipe(res);
}

/**
 * Ends the connection of a response whose body cannot be completed: what was written goes out,
 * then a FIN, so the client sees a body shorter than its length. A lingering close rather than
 * `res.destroy()`: destroying with the client's pipelined requests unread sends a reset, and a
 * reset makes the client's kernel drop the earlier, complete responses it had not read yet.
 */
function cutResponse(res: ServerResponse): void {
  const socket = res.socket;
  if (socket !== null) return lingerClose(socket);
  // Queued behind another response: node flushes what was written when the socket comes.
  res.once('socket', (assigned: Socket) => setImmediate(lingerClose, assigned));
}

/** Passes bytes through while they fit the declared length; errors on the first that does not, or at an early end. */
class LengthCheck extends Transform {
  readonly #declared: number;
  #seen = 0;
  constructor(declared: number) {
    super();
    this.#declared = declared;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#seen += chunk.length;
    if (this.#seen > this.#declared)
      return callback(createAnswerError('CLOUDFN_BAD_RESPONSE_LENGTH', this.#declared, `more than ${this.#declared}`));
    callback(null, chunk);
  }
  override _flush(callback: TransformCallback): void {
    if (this.#seen !== this.#declared)
      return callback(createAnswerError('CLOUDFN_BAD_RESPONSE_LENGTH', this.#declared, String(this.#seen)));
    callback();
  }
}
