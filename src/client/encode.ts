/**
 * From a call's `init` to what fetch sends, as mini-program request APIs encode data: an object
 * is JSON (or a form when the header says urlencoded), a string is text, bytes are binary; on
 * GET an object becomes the query string, since a GET carries no body (platform contract,
 * Runtime interface). FormData, URLSearchParams, a Blob and a stream are sent as fetch sends
 * them, by the encoder `invoke` uses.
 */
import { encodeFetchBody } from '../fetch-body.js';
import { createClientError } from './errors.js';
import { createHeaders } from '../fetch-fallback/index.js';

export interface Encoded {
  url: string;
  method: string;
  headers: Headers;
  body: string | Uint8Array | undefined;
}

function isBytes(value: unknown): value is ArrayBuffer | ArrayBufferView {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value);
}

/** A body fetch encodes itself: multipart, an urlencoded form, a Blob's bytes, a stream. */
function isFetchBody(value: unknown): value is FormData | URLSearchParams | Blob | ReadableStream {
  // Each global is looked up first: Node 14 (the function service) has URLSearchParams only.
  return (
    value instanceof URLSearchParams ||
    (typeof FormData === 'function' && value instanceof FormData) ||
    (typeof Blob === 'function' && value instanceof Blob) ||
    (typeof ReadableStream === 'function' && value instanceof ReadableStream)
  );
}

function toForm(data: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value])
      params.append(key, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
  }
  return params.toString();
}

/**
 * @example await encodeCall('http://localhost:8000', '/hello', { method: 'POST', body: { name: 'Ada' } }, {})
 */
export async function encodeCall(
  baseUrl: string,
  path: string,
  init: { method?: string; header?: Record<string, string>; body?: unknown },
  defaults: Record<string, string>,
): Promise<Encoded> {
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw createClientError(
      'CLIENT_BAD_OPTIONS',
      `path must be a string starting with "/", got ${JSON.stringify(path)}`,
    );
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = createHeaders(defaults);
  for (const [name, value] of Object.entries(init.header ?? {})) headers.set(name, String(value));
  let url = baseUrl + path;
  const data = init.body;
  let body: string | Uint8Array | undefined;
  if (data === undefined || data === null) {
    body = undefined;
  } else if (method === 'GET' || method === 'HEAD') {
    if (typeof data !== 'object' || isBytes(data) || (isFetchBody(data) && !(data instanceof URLSearchParams)))
      throw createClientError(
        'CLIENT_BAD_OPTIONS',
        `a ${method} call carries no body; pass an object to send as the query, or use method POST`,
      );
    const query = data instanceof URLSearchParams ? data.toString() : toForm(data as Record<string, unknown>);
    if (query !== '') url += (path.includes('?') ? '&' : '?') + query;
  } else if (typeof data === 'string') {
    body = data;
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=utf-8');
  } else if (isBytes(data)) {
    body =
      data instanceof ArrayBuffer
        ? new Uint8Array(data)
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (!headers.has('content-type')) headers.set('content-type', 'application/octet-stream');
  } else if (isFetchBody(data)) {
    // As fetch sends it: a given Content-Type wins, as it does for fetch.
    const encoded = await encodeFetchBody(data);
    body = encoded.bytes;
    if (encoded.type !== null && !headers.has('content-type')) headers.set('content-type', encoded.type);
  } else if (typeof data === 'object') {
    const type = headers.get('content-type')?.toLowerCase() ?? '';
    if (type.startsWith('application/x-www-form-urlencoded')) body = toForm(data as Record<string, unknown>);
    else {
      body = JSON.stringify(data);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
  } else {
    throw createClientError(
      'CLIENT_BAD_OPTIONS',
      `init.body must be an object, a string, bytes, FormData, URLSearchParams or a Blob, got ${typeof data}`,
    );
  }
  return { url, method, headers, body };
}
