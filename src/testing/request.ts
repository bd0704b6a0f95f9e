/**
 * From the request a test describes (fetch's `RequestInit` plus `path`, `query`, `cookies`,
 * `trigger`) to the bytes and headers sent. Bodies are encoded the way fetch encodes them, so a
 * test and a browser send the same thing; only a plain object or array differs: it is sent as
 * JSON, since that is what a test that passes one means.
 */
import { callerHeaders } from '../../runtime/request/caller.js';
import type { CallerInit } from '../../runtime/types.js';
import { stringifyCookie } from 'cookie';
import type { Trigger } from '../../runtime/types.js';
import { encodeFetchBody, isPlainBody } from '../fetch-body.js';

/** A query value: repeated keys are arrays; numbers and booleans are written as text. */
export type QueryValue = string | number | boolean | readonly (string | number | boolean)[];

/** What `invoke` sends: fetch's `RequestInit` plus where and how. */
/**
 * The body a test may send to a handler taking params `P`: when `P` is an object type, a plain
 * object body must be one (typos in field names are type errors); bytes, text, forms and
 * `FormData` are always allowed, since they are parsed by Content-Type.
 */
export type BodyFor<P> =
  | RequestInit['body']
  | Buffer
  | (unknown extends P
      ? Record<string, unknown> | readonly unknown[]
      : P extends object
        ? P
        : Record<string, unknown> | readonly unknown[]);

/** The query a test may send to a handler taking params `P`: its keys, when it declares them. */
export type QueryFor<P> =
  | URLSearchParams
  | (unknown extends P
      ? Record<string, QueryValue | undefined>
      : P extends readonly unknown[] | Buffer | Uint8Array
        ? Record<string, QueryValue | undefined>
        : P extends object
          ? { [K in keyof P]?: QueryValue }
          : Record<string, QueryValue | undefined>);

export interface InvokeRequest<P = unknown> {
  /** The HTTP method. @default 'POST' when there is a body, else 'GET' */
  method?: string;
  /** Request headers, as fetch takes them. */
  headers?: RequestInit['headers'];
  /**
   * The body: a plain object or array is sent as JSON, a string as text, a Buffer (or any
   * byte array) as binary, `URLSearchParams` as urlencoded, `FormData` as multipart; a given
   * Content-Type header wins over the inferred one.
   */
  body?: BodyFor<P>;
  /** Aborting it disconnects the client: the handler's `service.signal` aborts. */
  signal?: AbortSignal | null;
  /** The path, with or without a query string. @default `/<function name>` */
  path?: string;
  /** Query parameters appended to the path's own. */
  query?: QueryFor<P>;
  /** Cookies sent in a Cookie header (after any given in `headers`). */
  cookies?: Record<string, string>;
  /** `service.trigger` for this call. @default 'online' */
  trigger?: Trigger;
  /**
   * Call as this user, as the platform's gateway would: its `X-TT-*` headers are sent and
   * trusted for this call (`service.caller`). `{ anonymous: true }` calls as a user not signed in.
   * @default undefined (no user headers)
   */
  user?: CallerInit;
}

/** A request ready to write: method, path with query, headers by lower-case name, body bytes. */
export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function withQuery(path: string, query: InvokeRequest['query']): string {
  if (query === undefined) return path;
  const params = new URLSearchParams();
  if (query instanceof URLSearchParams) {
    for (const [key, value] of query) params.append(key, value);
  } else {
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
    }
  }
  const text = params.toString();
  if (text === '') return path;
  return path + (path.includes('?') ? (path.endsWith('?') || path.endsWith('&') ? '' : '&') : '?') + text;
}

/**
 * Encodes a test's request for the wire.
 * @example await toWireRequest({ body: { name: 'Ada' } }, '/hello') // POST, application/json
 */
export async function toWireRequest(request: InvokeRequest, defaultPath: string): Promise<WireRequest> {
  let path = request.path ?? defaultPath;
  if (!path.startsWith('/')) {
    throw new TypeError(`request.path must start with "/", got ${JSON.stringify(path)}; write e.g. "/hello?name=Ada"`);
  }
  path = withQuery(path, request.query);
  const headers = new Headers(request.headers ?? undefined);
  const given = request.body;
  const method = (request.method ?? (given === undefined || given === null ? 'GET' : 'POST')).toUpperCase();
  let body: Buffer | undefined;
  if (given !== undefined && given !== null) {
    if (method === 'GET' || method === 'HEAD') {
      throw new TypeError(`a ${method} request cannot have a body; pass query for GET, or method: 'POST'`);
    }
    if (isPlainBody(given)) {
      body = Buffer.from(JSON.stringify(given));
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    } else if (typeof given === 'number' || typeof given === 'boolean' || typeof given === 'bigint') {
      throw new TypeError(
        `request.body cannot be a ${typeof given} (${String(given)}); send JSON as an object, or text as a string`,
      );
    } else {
      // fetch's own encoder: the same bytes and Content-Type (boundary included) a browser sends.
      const encoded = await encodeFetchBody(given);
      body = Buffer.from(encoded.bytes.buffer, encoded.bytes.byteOffset, encoded.bytes.byteLength);
      if (encoded.type !== null && !headers.has('content-type')) headers.set('content-type', encoded.type);
    }
    headers.set('content-length', String(body.length));
  }
  if (request.cookies !== undefined) {
    const cookies = stringifyCookie(request.cookies);
    const own = headers.get('cookie');
    if (cookies !== '') headers.set('cookie', own === null || own === '' ? cookies : `${own}; ${cookies}`);
  }
  if (request.user !== undefined)
    for (const [name, value] of Object.entries(callerHeaders(request.user))) headers.set(name, value);
  if (!headers.has('host')) headers.set('host', 'localhost');
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return { method, path, headers: out, body };
}
