/**
 * From what a handler returned (or threw) to the HTTP response: the body mapping of
 * docs/handlers.md, the JSON error shape, the logid header on every response, and one
 * request line in the log per request. The head of an answer and the writing of a whole one
 * are response-head.ts; a returned stream is checked and sent by stream-answer.ts, imported on
 * the first,
 * and an error answer written by error-answer.ts, loaded when the app is created.
 *
 * It keeps one invariant for every response it writes (docs/architecture.md#the-response-invariant):
 * - one framing: the runtime owns Transfer-Encoding and Content-Length, so a response never
 *   carries both (a handler's Transfer-Encoding is dropped; its Content-Length is kept only as
 *   the declared length of a stream);
 * - a declared Content-Length is the number of bytes written, or the socket is destroyed before
 *   the body is complete and the mismatch logged under the request's logid;
 * - 204, 304 and 1xx carry no body, and 1xx is never a final status;
 * - nothing is written to a socket whose response is in flight: every answer goes through the
 *   request's own ServerResponse, which node queues behind the responses before it, and the
 *   connection-level errors of serve/http-server.ts wait for those to finish.
 */
import { LazyImport } from '../lazy-import.js';
import type { Exchange } from './exchange.js';
import { finish } from './finish.js';
import { lingerOnClose } from './linger.js';
import { BINARY, byteLength, end, endHeadOnly, headersFor, JSON_TYPE, TEXT } from './response-head.js';
import type { ReadableLike } from './stream-answer.js';

/** Writing an error answer (error-answer.ts), loaded when the app is created. */
const errorAnswer = new LazyImport(() => import('./error-answer.js'));

/** Sending a returned stream (stream-answer.ts), imported on the first one. */
const streamAnswer = new LazyImport(() => import('./stream-answer.js'));

function isReadable(value: object): value is ReadableLike {
  return typeof (value as ReadableLike).pipe === 'function' && typeof (value as ReadableLike).on === 'function';
}

export type { RetryAfterError } from './error-answer.js';

/**
 * Sends a handler's return value: nothing for undefined/null, text for strings, bytes for
 * Buffers and typed arrays, a stream piped, JSON for anything else.
 */
export function sendResult(x: Exchange, result: unknown): void {
  if (x.done) return;
  let body: string | Buffer | undefined;
  let type: string | undefined;
  if (result === undefined || result === null) {
    body = undefined;
  } else if (typeof result === 'string') {
    body = result;
    type = TEXT;
  } else if (Buffer.isBuffer(result)) {
    body = result;
    type = BINARY;
  } else if (result instanceof Uint8Array) {
    body = Buffer.from(result.buffer, result.byteOffset, result.byteLength);
    type = BINARY;
  } else if (typeof result === 'object' && isReadable(result)) {
    sendStream(x, result);
    return;
  } else {
    try {
      body = JSON.stringify(result);
    } catch (error) {
      sendError(x, new TypeError(`the returned value cannot be sent as JSON: ${(error as Error).message}`));
      return;
    }
    type = JSON_TYPE;
  }
  const status = x.status;
  if (status < 200 || status === 204 || status === 304) {
    if (status < 200) {
      sendError(x, new TypeError(`status ${status} cannot be a final response; use service.status() with 200-599`));
      return;
    }
    // These responses end at their head: a body (and its length) would be read as the next response.
    if (!x.claim()) return;
    endHeadOnly(x, status);
    return;
  }
  if (!x.claim()) return;
  const bytes = byteLength(body);
  end(
    x,
    status,
    headersFor(x, { contentType: type, length: bytes, handlerHeaders: true, close: x.host.closing, allow: false }),
    body,
  );
  finish(x, status, bytes);
}

/** Sends a returned stream (stream-answer.ts, imported on the first one), or answers why not. */
function sendStream(x: Exchange, stream: ReadableLike): void {
  const send = (module: typeof import('./stream-answer.js')): void => {
    const failure = module.sendStream(x, stream);
    if (failure !== undefined) sendError(x, failure);
  };
  const loaded = streamAnswer.value;
  if (loaded !== undefined) return send(loaded);
  streamAnswer.load().then(send, (error: unknown) => {
    stream.destroy?.();
    sendError(x, error);
  });
}

/**
 * Answers an error: a `CloudfnError` keeps its status and (below 500) its message; anything
 * else is a 500 whose message stays in the log unless `exposeErrors` is on (dev). The request is
 * claimed here, and a connection that closes after the answer marked, so nothing else answers it
 * and no request pipelined behind it runs; the answer itself is written by error-answer.ts,
 * loaded when the app is created (`loadErrorAnswer`): an error that comes first waits for it.
 */
export function sendError(x: Exchange, error: unknown): void {
  if (!x.claim()) {
    if (x.res.headersSent && !x.res.writableEnded) x.res.destroy(error as Error);
    return;
  }
  // A body we stopped reading (413, 415, 408) cannot be drained safely: close the connection,
  // lingering so that the client reads this answer rather than a reset (linger.ts).
  if (x.closeConnection && x.req.socket !== null) lingerOnClose(x.req.socket);
  const loaded = errorAnswer.value;
  if (loaded !== undefined) return loaded.answerError(x, error);
  errorAnswer.load().then(
    (module) => module.answerError(x, error),
    (loadError: unknown) => {
      // The chunk is missing from a deployed folder: a bare 500, and both errors in the log.
      x.line('error', `the function failed: ${String(error)}; its error answer could not load: ${String(loadError)}`);
      x.res.statusCode = 500;
      x.res.end();
      finish(x, 500, 0);
    },
  );
}

/**
 * Runs `then` with error-answer.ts, at once when it has loaded, else once it has; a load that
 * fails is reported on stderr (the chunk is missing from a deployed folder).
 */
export function withErrorAnswer(then: (module: typeof import('./error-answer.js')) => void): void {
  const loaded = errorAnswer.value;
  if (loaded !== undefined) return then(loaded);
  errorAnswer.load().then(then, (error: unknown) => {
    process.stderr.write(`cloudfn: the error answers failed to load: ${String(error)}\n`);
  });
}

/**
 * Starts loading the error answer (error-answer.ts) off the start-up path: the app calls it
 * when it is created. In a bundle it is a chunk that start-up does not read.
 */
export function loadErrorAnswer(): void {
  errorAnswer.load().catch(() => undefined);
}
