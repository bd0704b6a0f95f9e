/**
 * A `fetch` over node:http and node:https for runtimes without a global one (Node 14, the
 * platform's function service). It covers what cloudfn's clients send and read: a method,
 * headers, a string or byte body, an abort signal; the status, headers and whole body back.
 * Redirects are not followed (the platform's APIs answer where they are called).
 * The media client and `callContainer` choose it when `globalThis.fetch` is missing, so their
 * timeouts, retries, signing and verification are the same code on both runtimes.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { FallbackHeaders } from './headers.js';

/** What `nodeFetch` reads of a RequestInit. */
interface FetchInit {
  method?: string;
  headers?: Record<string, string> | Headers | FallbackHeaders;
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
}

/** A network failure, shaped as fetch's: a TypeError whose `cause` carries the socket's `code`. */
function networkError(cause: unknown): TypeError {
  const error = new TypeError('fetch failed');
  (error as { cause?: unknown }).cause = cause;
  return error;
}

function headerRecord(headers: FetchInit['headers']): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const record: Record<string, string> = {};
    (headers as Headers).forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }
  return { ...(headers as Record<string, string>) };
}

function responseHeaders(res: IncomingMessage): FallbackHeaders {
  const headers = new FallbackHeaders();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * Sends one request and resolves with a Response-like object once the whole body arrived
 * (cloudfn's clients read every body whole). Rejects with the signal's reason on abort.
 * @example const res = await nodeFetch('https://open.example.com/x', { method: 'POST', body: '{}' })
 */
export function nodeFetch(input: string | URL, init: FetchInit = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const url = new URL(String(input));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('This operation was aborted'));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (send === undefined) {
      reject(
        networkError(Object.assign(new Error(`unsupported protocol ${url.protocol}`), { code: 'ERR_INVALID_URL' })),
      );
      return;
    }
    const body = init.body === undefined || init.body === null ? undefined : Buffer.from(init.body);
    const headers = headerRecord(init.headers);
    if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length'))
      headers['content-length'] = String(body.length);
    const req = send(url, { method: init.method ?? 'GET', headers });
    const onAbort = (): void => {
      req.destroy();
      reject(signal?.reason ?? new Error('This operation was aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(networkError(error));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => reject(networkError(error)));
      res.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        const bytes = Buffer.concat(chunks);
        const status = res.statusCode ?? 0;
        const response = {
          status,
          ok: status >= 200 && status <= 299,
          statusText: res.statusMessage ?? '',
          url: url.href,
          headers: responseHeaders(res),
          arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          text: async () => bytes.toString('utf8'),
          json: async () => JSON.parse(bytes.toString('utf8')) as unknown,
        };
        // The members cloudfn's clients read; not a whole Response.
        resolve(response as unknown as Response);
      });
    });
    req.end(body);
  });
}

/**
 * The fetch to use: the runtime's own when it has one, `nodeFetch` otherwise.
 * @example const fetch = availableFetch(); await fetch(url, { method: 'POST', body })
 */
export function availableFetch(): typeof globalThis.fetch {
  return typeof globalThis.fetch === 'function' ? globalThis.fetch : (nodeFetch as typeof globalThis.fetch);
}
