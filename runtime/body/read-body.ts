/**
 * Reading a request body into one Buffer under a size limit: a declared Content-Length over
 * the limit is refused before a byte is read, a chunked body as soon as it passes the limit.
 */
import type { IncomingMessage } from 'node:http';
import { createError } from '../errors.js';

/** Shared by every bodiless request: a zero-length Buffer cannot be written to. */
const EMPTY = Buffer.alloc(0);

/** The error a read rejects with when the client goes away before the body is complete. */
export interface ClientAbortError extends Error {
  code: 'ECONNRESET';
}

/**
 * Reads the whole body of `req`. Rejects with CLOUDFN_UNSUPPORTED_ENCODING (415) when a
 * Content-Encoding other than `identity` is declared, with CLOUDFN_BODY_TOO_LARGE (413)
 * naming `limitName` when the body is larger than `limit` bytes (the socket is left to the
 * caller, which should answer with `Connection: close`), and with an error whose `code` is
 * `ECONNRESET` when the client aborts.
 * @example const body = await readBody(req, limits.maxBodySize, 'maxBodySize');
 */
export function readBody(req: IncomingMessage, limit: number, limitName: string): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) =>
    readBodyThen(
      req,
      limit,
      limitName,
      undefined,
      (_, body) => resolve(body),
      (_, error) => reject(error),
    ),
  );
}

/**
 * `readBody` for the request pipeline: the outcome goes to `done(context, body)` or
 * `failed(context, error)`, called once, synchronously when nothing needs reading (the call
 * then returns false; it returns true when the body is being read). Module-level
 * callbacks and a context instead of a Promise and its closures: on the JSON echo benchmark the
 * request skips a microtask, a Promise, two closures and four bound listeners (part of the
 * 0.5 µs per request measured with the content-type cache of parse-body.ts).
 * @example readBodyThen(req, limits.maxBodySize, 'maxBodySize', exchange, onBody, onBodyError)
 */
export function readBodyThen<C>(
  req: IncomingMessage,
  limit: number,
  limitName: string,
  context: C,
  done: (context: C, body: Buffer) => void,
  failed: (context: C, error: Error) => void,
): boolean {
  const headers = req.headers;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && !isIdentity(encoding)) {
    failed(context, createError('CLOUDFN_UNSUPPORTED_ENCODING', encoding));
    return false;
  }
  const length = headers['content-length'];
  if (headers['transfer-encoding'] === undefined) {
    if (length === undefined || length === '0') {
      done(context, EMPTY);
      return false;
    }
    // node's parser has already refused a Content-Length that is not digits.
    if (Number(length) > limit) {
      failed(context, createError('CLOUDFN_BODY_TOO_LARGE', limit, limitName));
      return false;
    }
  }
  if (req.complete && req.readableEnded) {
    done(context, EMPTY);
    return false;
  }
  if ((req as Reading<C>)[READER] !== undefined) {
    failed(context, new Error('the body of this request is already being read; read it once and share the Buffer'));
    return false;
  }
  const reader = new BodyReader<C>(req, limit, limitName, context, done, failed);
  (req as Reading<C>)[READER] = reader;
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('close', onClose);
  return true;
}

/**
 * Ends the read of `req`'s body with `error` (its reader's `failed` gets it), when the
 * connection fails under it: a body too slow (408) or malformed (400, 413). False when the
 * body is not being read, so the caller answers some other way.
 * @example if (!abortBodyRead(req, createError('CLOUDFN_REQUEST_TIMEOUT'))) socket.destroy();
 */
export function abortBodyRead(req: IncomingMessage, error: Error): boolean {
  const reader = (req as Reading<unknown>)[READER];
  if (reader === undefined) return false;
  reader.finish(error);
  return true;
}

function isIdentity(encoding: string): boolean {
  return encoding === 'identity' || encoding.trim().toLowerCase() === 'identity';
}

/** Where a request being read keeps its reader, so the listeners can be shared functions. */
const READER = Symbol('cloudfn.bodyReader');
type Reading<C> = IncomingMessage & { [READER]?: BodyReader<C> };

// Listeners shared by every request: `this` is the request.
function onData(this: Reading<unknown>, chunk: Buffer): void {
  this[READER]?.data(chunk);
}
function onEnd(this: Reading<unknown>): void {
  this[READER]?.end();
}
function onError(this: Reading<unknown>, error: Error): void {
  this[READER]?.finish(clientAbort(error));
}
function onClose(this: Reading<unknown>): void {
  // 'close' before 'end' means the connection went away mid-body.
  this[READER]?.finish(clientAbort());
}

/** The state of one read. */
class BodyReader<C> {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  constructor(
    private readonly req: Reading<C>,
    private readonly limit: number,
    private readonly limitName: string,
    private readonly context: C,
    private readonly done: (context: C, body: Buffer) => void,
    private readonly failed: (context: C, error: Error) => void,
  ) {}

  data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.finish(createError('CLOUDFN_BODY_TOO_LARGE', this.limit, this.limitName));
      return;
    }
    this.chunks.push(chunk);
  }

  end(): void {
    const chunks = this.chunks;
    // One chunk is the common case for small bodies: hand it over without a copy.
    const body =
      chunks.length === 1 ? (chunks[0] as Buffer) : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, this.size);
    this.finish(undefined, body);
  }

  finish(error: Error | undefined, body?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    const req = this.req;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    // The 'error' listener stays: the stream may still error once the caller answers.
    req[READER] = undefined;
    this.chunks.length = 0;
    if (error === undefined) this.done(this.context, body ?? EMPTY);
    else this.failed(this.context, error);
  }
}

function clientAbort(cause?: Error): ClientAbortError {
  if (cause !== undefined && (cause as { code?: unknown }).code === 'ECONNRESET') return cause as ClientAbortError;
  const error = new Error(
    'the client closed the connection before the body was complete',
    cause === undefined ? undefined : { cause },
  ) as ClientAbortError;
  error.code = 'ECONNRESET';
  return error;
}
