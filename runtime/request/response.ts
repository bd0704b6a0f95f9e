/**
 * From what a handler returned (or threw) to the HTTP response: the body mapping of
 * docs/handlers.md, the JSON error shape, the logid header on every response, and one
 * request line in the log per request.
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
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TransformCallback } from 'node:stream';
import { CloudfnError, createError } from '../errors.js';
import type { Exchange } from './exchange.js';
import { finish } from './finish.js';
import { lingerClose, lingerOnClose } from './linger.js';
import { errorBody } from './error-body.js';
import { issuesText } from '../contract/pointer.js';

// A builtin through process.getBuiltinModule rather than an ESM import, which builds a namespace
// from every export of the module: node:util, node:buffer and node:stream imported that way cost
// 0.7 ms of each cold start (node 20, after node:http), taken this way 0.1 ms.
const { Transform } = process.getBuiltinModule('node:stream');

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const BINARY = 'application/octet-stream';

interface ReadableLike {
  pipe<T extends NodeJS.WritableStream>(destination: T): T;
  unpipe?(destination: NodeJS.WritableStream): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  destroy?(error?: Error): unknown;
}

function isReadable(value: object): value is ReadableLike {
  return typeof (value as ReadableLike).pipe === 'function' && typeof (value as ReadableLike).on === 'function';
}

/** Response headers as node's writeHead takes them flat: name, value, name, value. */
type HeaderList = (string | number | readonly string[])[];

/** What `headersFor` adds to or keeps from the handler's headers. */
interface HeaderPlan {
  /** The default Content-Type (a handler's own wins). */
  contentType: string | undefined;
  /**
   * The Content-Length to send; `stream` keeps the handler's as the declared length of a
   * stream; `none` sends none (204, 304).
   */
  length: number | 'stream' | 'none';
  /** Send the headers and cookies the handler set (answers and HttpErrors do, runtime errors not). */
  handlerHeaders: boolean;
  /** Add `connection: close`. */
  close: boolean;
  /** Add `allow: GET, POST` (a 405). */
  allow: boolean;
  /** Add `retry-after` with these seconds (a 503 for load, not for shutdown). */
  retryAfter?: number | undefined;
}

/** A load refusal that knows how long the client should wait (memory-budget.ts); 1 s when unset. */
export type RetryAfterError = CloudfnError & { retryAfter?: number };

/**
 * Builds the response headers: the handler's, its cookies, the default content type, the
 * length, the logid, and the runtime's own `connection: close` and `allow`, which replace a
 * handler's header of the same name. A flat array rather than an object: writeHead walks it
 * without for-in and hasOwn, and the common GET builds one small array (part of the 0.3 µs
 * per request measured for this file's changes, with the single-pass byte count below).
 */
function headersFor(x: Exchange, plan: HeaderPlan): HeaderList {
  const { contentType, length, close, allow } = plan;
  const out: HeaderList = [];
  let hasType = false;
  if (plan.handlerHeaders) {
    let cookies: readonly string[] | undefined = x.cookies;
    const own = x.headers;
    if (own !== undefined) {
      for (const key in own) {
        const [name, value] = own[key]!;
        if (key === 'content-type') hasType = true;
        else if (key === 'set-cookie' && cookies !== undefined) {
          // The handler's Set-Cookie header and its setCookie calls go out together, its header first.
          cookies = [...(Array.isArray(value) ? value : [value as string]), ...cookies];
          continue;
        } else if (
          key === 'transfer-encoding' ||
          (key === 'content-length' && length !== 'stream') ||
          (key === 'connection' && close) ||
          (key === 'allow' && allow)
        )
          continue;
        out.push(name, value);
      }
    }
    if (cookies !== undefined) out.push('set-cookie', cookies);
  }
  if (!hasType && contentType !== undefined) out.push('content-type', contentType);
  if (typeof length === 'number') out.push('content-length', length);
  out.push(x.host.options.logidHeader, x.logid);
  if (allow) out.push('allow', 'GET, POST');
  if (close) out.push('connection', 'close');
  if (plan.retryAfter !== undefined) out.push('retry-after', String(plan.retryAfter));
  return out;
}

/** The byte length of a body. */
function byteLength(body: string | Buffer | undefined): number {
  return body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/** Writes a whole response; the caller has claimed the exchange. */
function end(x: Exchange, status: number, headers: HeaderList, body: string | Buffer | undefined): void {
  const res = x.res;
  res.writeHead(status, headers as unknown as OutgoingHttpHeaders);
  res.end(body);
  // Most answers leave at once; one still in node's buffers waits for a client that reads.
  if (res.writableLength > 0) stuckAnswer(x, res.writableLength);
}

/**
 * An answer the client has not read yet: its bytes count against the memory budget until they
 * are sent, and the connection is closed when the client reads nothing for `sendTimeout`
 * (node's idle timeout of the socket, which a write that makes progress renews; node sets the
 * keep-alive timeout in its place once the answer is sent).
 */
function stuckAnswer(x: Exchange, pending: number): void {
  const host = x.host;
  host.memory?.holdAnswer(x.res, pending, x.fn);
  const socket = x.res.socket;
  // Shortened while the app is under pressure (overload.ts).
  const ms = host.overload?.sendTimeout ?? host.options.sendTimeout;
  if (ms > 0 && socket != null) {
    socket.setTimeout(ms);
    // Sent at last: node's own 'finish' listener ran first and set the keep-alive timeout,
    // unless keepAliveTimeout is 0; then the idle socket must not keep this one.
    x.res.once('finish', () => {
      if (socket.timeout === ms) socket.setTimeout(0);
    });
    x.res.once('timeout', () => {
      host.connections?.sendTimedOut();
      x.line('warn', `the client did not read the answer for ${ms} ms (sendTimeout); the connection was closed`, {
        sendTimeout: ms,
      });
      socket.destroy();
    });
  }
}

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

/** Answers 204 or 304: these end at their head, so no body and no length (the exchange is claimed). */
function endHeadOnly(x: Exchange, status: number): void {
  const headers = headersFor(x, {
    contentType: undefined,
    length: 'none',
    handlerHeaders: true,
    close: x.host.closing,
    allow: false,
  });
  end(x, status, headers, undefined);
  finish(x, status, 0);
}

function sendStream(x: Exchange, stream: ReadableLike): void {
  const status = x.status;
  if (status < 200) {
    stream.destroy?.();
    sendError(x, new TypeError(`status ${status} cannot be a final response; use service.status() with 200-599`));
    return;
  }
  const declared = declaredLength(x);
  if (declared === null) {
    stream.destroy?.();
    sendError(
      x,
      new TypeError(
        `Content-Length ${JSON.stringify(x.headers!['content-length']![1])} is not a byte count; set a whole number, or none for a stream`,
      ),
    );
    return;
  }
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
      return callback(createError('CLOUDFN_BAD_RESPONSE_LENGTH', this.#declared, `more than ${this.#declared}`));
    callback(null, chunk);
  }
  override _flush(callback: TransformCallback): void {
    if (this.#seen !== this.#declared)
      return callback(createError('CLOUDFN_BAD_RESPONSE_LENGTH', this.#declared, String(this.#seen)));
    callback();
  }
}

/**
 * The message of a thrown value and of the errors that caused it (`fetch failed`'s
 * `getaddrinfo ENOTFOUND ws-push.example`), up to three deep: the line names why, not only what.
 * @example withCauses(new TypeError('fetch failed', { cause })) // 'fetch failed (cause: getaddrinfo ENOTFOUND a.b [ENOTFOUND])'
 */
export function withCauses(error: unknown): string {
  return error instanceof Error ? `${error.message}${causes(error)}` : String(error);
}

function causes(error: Error): string {
  let out = '';
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause !== undefined && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    const message = cause instanceof Error ? cause.message : String(cause);
    out += ` (cause: ${message}${typeof code === 'string' && !message.includes(code) ? ` [${code}]` : ''})`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return out;
}

/**
 * Answers an error: a `CloudfnError` keeps its status and (below 500) its message; anything
 * else is a 500 whose message stays in the log unless `exposeErrors` is on (dev).
 */
export function sendError(x: Exchange, error: unknown): void {
  if (!x.claim()) {
    if (x.res.headersSent && !x.res.writableEnded) x.res.destroy(error as Error);
    return;
  }
  const known = error instanceof CloudfnError ? error : undefined;
  const status = known?.status ?? 500;
  const code = known?.code ?? 'CLOUDFN_HANDLER_ERROR';
  let message = known?.expose ? known.message : createError('CLOUDFN_HANDLER_ERROR').message;
  if (!known?.expose) {
    // A crash: its message and stack go to the log, never to the client (unless in dev).
    const detail = withCauses(error);
    x.line('error', `the function failed: ${detail}`, {
      code,
      stack: error instanceof Error ? error.stack : undefined,
    });
    if (x.host.options.exposeErrors)
      message = error instanceof Error ? `${error.stack ?? error.message}${causes(error)}` : String(error);
  }
  const issues = known?.issues;
  const body = errorBody(code, message, x.logid, issues);
  const bytes = Buffer.byteLength(body);
  // A body we stopped reading (413, 415, 408) cannot be drained safely: close the connection,
  // lingering so that the client reads this answer rather than a reset (linger.ts).
  if (x.closeConnection && x.req.socket !== null) lingerOnClose(x.req.socket);
  const headers = headersFor(x, {
    contentType: JSON_TYPE,
    length: bytes,
    handlerHeaders: known?.name === 'HttpError',
    close: x.host.closing || x.closeConnection,
    allow: status === 405,
    retryAfter:
      code === 'CLOUDFN_OVERLOADED' || code === 'CLOUDFN_TOO_MANY_CONNECTIONS'
        ? ((known as RetryAfterError).retryAfter ?? 1)
        : undefined,
  });
  end(x, status, headers, body);
  finish(x, status, bytes, known === undefined ? undefined : errorNote(code, known.message, issues));
}

/** The request line's `error`: `CODE: message`, and every issue of a refusal of params. */
function errorNote(code: string, message: string, issues: CloudfnError['issues']): string {
  return issues === undefined ? `${code}: ${message}` : `${code}: ${message} [issues: ${issuesText(issues)}]`;
}
