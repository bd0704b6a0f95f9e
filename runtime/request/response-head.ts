/**
 * The head of every answer and the answers without a body to stream: the response headers
 * (the handler's, its cookies, the default type, the length, the logid, the runtime's own),
 * writing a whole answer, and watching one its client does not read. response.ts and
 * stream-answer.ts write through it.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from './exchange.js';
import { finish } from './finish.js';

export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';
export const BINARY = 'application/octet-stream';

/** Response headers as node's writeHead takes them flat: name, value, name, value. */
export type HeaderList = (string | number | readonly string[])[];

/** What `headersFor` adds to or keeps from the handler's headers. */
export interface HeaderPlan {
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

/**
 * Builds the response headers: the handler's, its cookies, the default content type, the
 * length, the logid, and the runtime's own `connection: close` and `allow`, which replace a
 * handler's header of the same name. A flat array rather than an object: writeHead walks it
 * without for-in and hasOwn, and the common GET builds one small array (part of the 0.3 µs
 * per request measured for this file's changes, with the single-pass byte count below).
 */
export function headersFor(x: Exchange, plan: HeaderPlan): HeaderList {
  const { contentType, length, close, allow } = plan;
  // Most answers: no header or cookie of the handler's, a type and a length, nothing of the
  // runtime's but the logid. One literal, as the general path below would build it.
  if (
    x.headers === undefined &&
    x.cookies === undefined &&
    contentType !== undefined &&
    typeof length === 'number' &&
    !close &&
    !allow &&
    plan.retryAfter === undefined
  )
    return ['content-type', contentType, 'content-length', length, x.host.options.logidHeader, x.logid];
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
export function byteLength(body: string | Buffer | undefined): number {
  return body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/** Writes a whole response; the caller has claimed the exchange. */
export function end(x: Exchange, status: number, headers: HeaderList, body: string | Buffer | undefined): void {
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

/** Answers 204 or 304: these end at their head, so no body and no length (the exchange is claimed). */
export function endHeadOnly(x: Exchange, status: number): void {
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
