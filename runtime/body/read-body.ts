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
  const headers = req.headers;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && !isIdentity(encoding)) {
    return Promise.reject(createError('CLOUDFN_UNSUPPORTED_ENCODING', encoding));
  }
  const length = headers['content-length'];
  if (headers['transfer-encoding'] === undefined) {
    if (length === undefined || length === '0') return Promise.resolve(EMPTY);
    // node's parser has already refused a Content-Length that is not digits.
    if (Number(length) > limit) return Promise.reject(createError('CLOUDFN_BODY_TOO_LARGE', limit, limitName));
  }
  if (req.complete && req.readableEnded) return Promise.resolve(EMPTY);
  return new Promise<Buffer>((resolve, reject) => new BodyReader(req, limit, limitName, resolve, reject).start());
}

function isIdentity(encoding: string): boolean {
  return encoding === 'identity' || encoding.trim().toLowerCase() === 'identity';
}

/** The state of one read; methods are on the prototype, not closures created per request. */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly limitName: string,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    this.onClose = this.onClose.bind(this);
  }

  start(): void {
    const req = this.req;
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('error', this.onError);
    req.on('close', this.onClose);
  }

  onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.finish(createError('CLOUDFN_BODY_TOO_LARGE', this.limit, this.limitName));
      return;
    }
    this.chunks.push(chunk);
  }

  onEnd(): void {
    const chunks = this.chunks;
    // One chunk is the common case for small bodies: hand it over without a copy.
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, this.size);
    this.finish(undefined, body);
  }

  onError(error: Error): void {
    this.finish(clientAbort(error));
  }

  onClose(): void {
    // 'close' before 'end' means the connection went away mid-body.
    if (!this.settled) this.finish(clientAbort());
  }

  private finish(error: Error | undefined, body?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    const req = this.req;
    req.off('data', this.onData);
    req.off('end', this.onEnd);
    req.off('close', this.onClose);
    // The 'error' listener stays: the stream may still error once the caller answers.
    this.chunks.length = 0;
    if (error === undefined) this.resolve(body ?? EMPTY);
    else this.reject(error);
  }
}

function clientAbort(cause?: Error): ClientAbortError {
  if (cause !== undefined && (cause as { code?: unknown }).code === 'ECONNRESET') return cause as ClientAbortError;
  const error = new Error('the client closed the connection before the body was complete', cause === undefined ? undefined : { cause }) as ClientAbortError;
  error.code = 'ECONNRESET';
  return error;
}
