/**
 * Reading a request body into one Buffer under a size limit: a declared Content-Length over the
 * limit is refused before a byte is read, a chunked body as soon as it passes the limit, a body
 * shorter or longer than its Content-Length is a 400, a client that goes away mid-body an abort.
 * A body with a Content-Length is collected here, and one that arrives in one chunk (a JSON
 * body of a few kB mostly does) is that chunk, not a copy of it; a chunked body is read with
 * raw-body, whose limit counts the bytes as they come. This file owns the checks before the
 * read (encoding, length, a second read), the collection of a body of known length, the mapping
 * of raw-body's errors to the runtime's, and ending a read early when the connection fails
 * under it. docs/decisions.md ("A body of known length is read without raw-body") says why.
 */
import type { IncomingMessage } from 'node:http';
import type getRawBody from 'raw-body';
import type { RawBodyError } from 'raw-body';
import { createError } from '../errors.js';
import { commonJs, LazyImport } from '../lazy-import.js';

// A builtin through process.getBuiltinModule rather than an ESM import (decode-text.ts says why).
// Taken on the first body read, not at load: a function-service file (Node 14, which has no
// process.getBuiltinModule) imports this module for EMPTY_BODY and never reads a body here.
type AsyncResourceClass = typeof import('node:async_hooks').AsyncResource;
let AsyncResourceOnce: AsyncResourceClass | undefined;
function asyncResourceClass(): AsyncResourceClass {
  AsyncResourceOnce ??= process.getBuiltinModule('node:async_hooks').AsyncResource;
  return AsyncResourceOnce;
}

/**
 * raw-body, imported on the first body read (../lazy-import.ts) with its errors' translation
 * (raw-body-errors.ts): a function that only answers GET never loads them. In a bundle they
 * are a chunk (about 16 kB minified with http-errors, and without the 490 kB of iconv-lite,
 * see src/build/lean-deps.ts).
 */
export const rawBody = new LazyImport(() =>
  Promise.all([import('raw-body'), import('./raw-body-errors.js')]).then(([m, errors]) => ({
    read: commonJs<typeof getRawBody>(m),
    translate: errors.translateRawBodyError,
  })),
);

/** Shared by every bodiless request: a zero-length Buffer cannot be written to. */
export const EMPTY_BODY = Buffer.alloc(0);

/** The error a read rejects with when the client goes away before the body is complete. */
export interface ClientAbortError extends Error {
  code: 'ECONNRESET';
}

/**
 * Reads the whole body of `req`. Rejects with CLOUDFN_UNSUPPORTED_ENCODING (415) when a
 * Content-Encoding other than `identity` is declared, with CLOUDFN_BODY_TOO_LARGE (413)
 * naming `limitName` when the body is larger than `limit` bytes (the socket is left to the
 * caller, which should answer with `Connection: close`), with CLOUDFN_BAD_REQUEST (400) when the
 * bytes do not match the Content-Length, and with an error whose `code` is `ECONNRESET` when the
 * client aborts.
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
 * then returns false; it returns true when the body is being read). Module-level callbacks and
 * a context instead of a Promise and its closures: the request skips a microtask and a Promise.
 * raw-body's callback form is used for the same reason (its Promise form adds one per request).
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
  const chunked = headers['transfer-encoding'] !== undefined;
  if (!chunked) {
    if (length === undefined || length === '0') {
      done(context, EMPTY_BODY);
      return false;
    }
    // node's parser has already refused a Content-Length that is not digits. raw-body would
    // refuse it too, but a tick later: refusing here answers before `100 Continue` is sent.
    if (Number(length) > limit) {
      failed(context, createError('CLOUDFN_BODY_TOO_LARGE', limit, limitName));
      return false;
    }
  }
  if (req.complete && req.readableEnded) {
    done(context, EMPTY_BODY);
    return false;
  }
  if ((req as Reading<C>)[READER] !== undefined) {
    failed(context, new Error('the body of this request is already being read; read it once and share the Buffer'));
    return false;
  }
  const reader = new BodyReader<C>(req, limit, limitName, context, done, failed);
  (req as Reading<C>)[READER] = reader;
  // Ours stay until the reader settles ('error' for good): raw-body drops its listeners when
  // it finishes, and an 'error' without a listener would throw. 'close' covers a connection
  // that closes without the 'aborted' event raw-body waits for.
  req.on('error', onError);
  req.on('close', onClose);
  if (!chunked && req.readableEncoding === null) {
    // A declared length at most the limit: nothing raw-body adds but a copy of the bytes
    // (its Buffer.concat copies even a single chunk, 1 kB more per POST of 1 kB outside the
    // heap). A stream already closed never emits 'close' again: that is a client gone, and
    // the outcome is known at once.
    if (!req.readable) {
      reader.finish(clientAbort());
      return false;
    }
    reader.collect(Number(length));
    return true;
  }
  // raw-body counts a chunked body against the limit as it arrives. Its callback is made here,
  // for this path only, and bound rather than an arrow function (BodyReader says why).
  const options = { length: null, limit };
  const callback = reader.fromRawBody.bind(reader);
  const loaded = rawBody.value;
  if (loaded !== undefined) loaded.read(req, options, callback);
  else
    rawBody.load().then(
      (raw) => {
        if (!reader.settled) raw.read(req, options, callback);
      },
      (error: Error) => reader.finish(error),
    );
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
  // The read stops collecting: no more 'data' while paused; raw-body's listeners go with 'close'.
  req.pause();
  // Body bytes node parsed before the failure that nobody read yet (raw-body still loading, or
  // not yet handed the request): a body already past its limit is the 413 raw-body would have
  // answered, not the 400 of the bytes after it (a pipelined request read as a chunk size).
  reader.finish(req.readableLength > reader.limit ? reader.tooLarge() : error);
  return true;
}

function isIdentity(encoding: string): boolean {
  return encoding === 'identity' || encoding.trim().toLowerCase() === 'identity';
}

/** Where a request being read keeps its reader, so the listeners can be shared functions. */
const READER = Symbol('cloudfn.bodyReader');
type Reading<C> = IncomingMessage & { [READER]?: BodyReader<C> };

// Listeners shared by every request: `this` is the request.
function onError(this: Reading<unknown>, error: Error): void {
  this[READER]?.finish(clientAbort(error));
}
function onClose(this: Reading<unknown>): void {
  // 'close' before the body was complete: the connection went away mid-body.
  this[READER]?.finish(clientAbort());
}
function onData(this: Reading<unknown>, chunk: Buffer): void {
  this[READER]?.add(chunk);
}
function onEnd(this: Reading<unknown>): void {
  const reader = this[READER];
  // In the async context the read began in, as raw-body's callback is: a handler that reads an
  // AsyncLocalStorage entered around the 'request' event (a tracer's) still finds its store.
  if (reader !== undefined) reader.scope!.runInAsyncScope(reader.end, reader);
}

/** CLOUDFN_BAD_REQUEST (400) for a body whose bytes do not match its Content-Length. */
function lengthMismatch(received: number, expected: number): Error {
  return createError(
    'CLOUDFN_BAD_REQUEST',
    `the body has ${received} bytes but Content-Length says ${expected}; send the length of the body sent`,
  );
}

/**
 * The state of one read: settles once, with the body, raw-body's outcome or an earlier failure.
 * A body of known length is collected in `#first` (its only chunk, handed on as it is) and,
 * from its second chunk on, copied into `#whole`, a Buffer of the declared length: each chunk
 * is copied as it arrives, while the client still sends, instead of all of them joined after
 * the last (an 8 MiB upload then answered about 2 ms later, the time of that copy), and is
 * garbage at once rather than held until the end beside the copy (docs/performance.md#multipart-uploads).
 * No arrow function is made per read: one stored on the reader (raw-body's callback, even when
 * never called) made V8 keep about 1 MB of each young-generation collection alive under a POST
 * load and grow the young generation to 32 MB on Node 24, where a bound function does not
 * (docs/performance.md#node-24s-young-generation).
 */
class BodyReader<C> {
  settled = false;
  #length = -1;
  #received = 0;
  #first: Buffer | undefined = undefined;
  #whole: Buffer | undefined = undefined;
  /** The async context of a collected read, where it ends. */
  scope: InstanceType<AsyncResourceClass> | undefined = undefined;
  readonly #req: Reading<C>;
  readonly limit: number;
  readonly #limitName: string;
  readonly #context: C;
  readonly #done: (context: C, body: Buffer) => void;
  readonly #failed: (context: C, error: Error) => void;

  constructor(
    req: Reading<C>,
    limit: number,
    limitName: string,
    context: C,
    done: (context: C, body: Buffer) => void,
    failed: (context: C, error: Error) => void,
  ) {
    this.#req = req;
    this.limit = limit;
    this.#limitName = limitName;
    this.#context = context;
    this.#done = done;
    this.#failed = failed;
  }

  /** raw-body's outcome for a chunked body (readBodyThen binds it as raw-body's callback). */
  fromRawBody(error: RawBodyError | null, body: Buffer): void {
    if (error == null) this.finish(undefined, body);
    // raw-body called back, so its error translation (raw-body-errors.ts) loaded with it.
    else this.finish(rawBody.value!.translate(error, this, clientAbort));
  }

  /** CLOUDFN_BODY_TOO_LARGE (413) for this read's limit. */
  tooLarge(): Error {
    return createError('CLOUDFN_BODY_TOO_LARGE', this.limit, this.#limitName);
  }

  /** Starts collecting a body of `length` bytes from the request's 'data' events. */
  collect(length: number): void {
    this.#length = length;
    this.scope = new (asyncResourceClass())('cloudfn.readBody');
    const req = this.#req;
    req.on('data', onData);
    req.on('end', onEnd);
  }

  /** One chunk of a collected body; past the limit the read ends with a 413, as raw-body's would. */
  add(chunk: Buffer): void {
    this.#received += chunk.length;
    if (this.#received > this.limit) {
      // Halted as raw-body halts it: no more 'data' while the caller answers.
      this.#req.pause();
      this.finish(this.tooLarge());
    } else if (this.#first === undefined) this.#first = chunk;
    else if (this.#received <= this.#length) {
      // The declared length was checked against the limit and charged to the memory budget
      // before the read; node's parser never passes more than it, and a body that ends short
      // is refused (end), so the bytes of `#whole` past `#received` are never read.
      let whole = this.#whole;
      if (whole === undefined) {
        const first = this.#first;
        whole = this.#whole = Buffer.allocUnsafe(this.#length);
        first.copy(whole, 0);
      }
      chunk.copy(whole, this.#received - chunk.length);
    }
  }

  /** The end of a collected body: its one chunk as it is, or the Buffer its chunks were copied into. */
  end(): void {
    const received = this.#received;
    if (received !== this.#length) return this.finish(lengthMismatch(received, this.#length));
    this.finish(undefined, this.#whole ?? this.#first);
  }

  finish(error: Error | undefined, body?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    const req = this.#req;
    req.off('close', onClose);
    if (this.#length !== -1) {
      req.off('data', onData);
      req.off('end', onEnd);
      this.#first = this.#whole = undefined;
    }
    // The 'error' listener stays: the stream may still error once the caller answers.
    req[READER] = undefined;
    if (error === undefined) this.#done(this.#context, body ?? EMPTY_BODY);
    else this.#failed(this.#context, error);
  }
}

/**
 * The error a read ends with when the client went away mid-body (the pipeline logs it 499).
 * @example abortBodyRead(req, clientAbort(parserError))
 */
export function clientAbort(cause?: Error): ClientAbortError {
  if (cause !== undefined && (cause as { code?: unknown }).code === 'ECONNRESET') return cause as ClientAbortError;
  const error = new Error(
    'the client closed the connection before the body was complete',
    cause === undefined ? undefined : { cause },
  ) as ClientAbortError;
  error.code = 'ECONNRESET';
  return error;
}
