/**
 * Encoding a request body the way fetch does, shared by `invoke` (src/testing) and
 * `callContainer` (src/client): FormData becomes multipart with its boundary, URLSearchParams an
 * urlencoded form, a Blob its bytes with its type, a string text, a stream its bytes. Only a
 * plain object or array differs from fetch (which would send "[object Object]"): the callers
 * send it as JSON, since that is what passing one means.
 */

/** The bytes fetch would send and the Content-Type it would set (null when it sets none). */
export interface FetchBody {
  bytes: Uint8Array;
  type: string | null;
}

/**
 * A plain object or array, which the callers send as JSON; class instances (Blob, FormData,
 * URLSearchParams, streams...) are fetch's to encode.
 * @example isPlainBody({ a: 1 }) // true; isPlainBody(new FormData()) // false
 */
export function isPlainBody(body: unknown): body is Record<string, unknown> | unknown[] {
  if (Array.isArray(body)) return true;
  if (typeof body !== 'object' || body === null) return false;
  const proto = Object.getPrototypeOf(body) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Encodes `body` with fetch's own encoder (a `Request`), so the bytes and the Content-Type
 * (boundary included) are those a browser sends.
 * @example await encodeFetchBody(new URLSearchParams({ a: '1' })) // { bytes: 'a=1', type: 'application/x-www-form-urlencoded;charset=UTF-8' }
 */
export async function encodeFetchBody(body: unknown): Promise<FetchBody> {
  const encoded = new Request('http://cloudfn.invalid/', {
    method: 'POST',
    body: body as RequestInit['body'],
    duplex: 'half',
  } as RequestInit);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), type: encoded.headers.get('content-type') };
}
