/**
 * `fetch` and the Web globals that come with it, for user code in a function-service file
 * (Node 14 has none of them): `fetch`, `Headers`, `Request`, `Response`, `AbortController`,
 * `AbortSignal` (with `AbortSignal.timeout` and `.abort`), `FormData` and `Blob`, each defined on
 * `globalThis` only when missing, so a newer Node keeps its own. The build imports this module
 * only into files whose code names one of them (src/build/function-service/node14-globals.ts).
 *
 * It covers what functions commonly do with fetch, as undici does it: a method, headers, a body
 * (string, bytes, URLSearchParams, FormData, Blob); redirects followed (up to 20; 303, and 301
 * and 302 after a POST, become a GET without body), or `redirect: 'manual' | 'error'`; gzip,
 * deflate and br answers decoded; an abort or timeout rejecting with the signal's reason
 * (`AbortError`, `TimeoutError`); a network failure as `TypeError('fetch failed')` with the
 * socket's error as `cause`. Bodies are read whole: `res.body` is not a stream here.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { arrayBufferOf, FallbackBlob, FallbackFormData, toBuffer } from './blob-form.js';
import { FallbackHeaders } from './headers.js';

type HeadersInit = FallbackHeaders | Record<string, string> | Iterable<readonly [string, string]>;

/** An Error named as the DOMException fetch rejects with (Node 14 has no DOMException global). */
function domError(name: 'AbortError' | 'TimeoutError', message: string): Error {
  const error = new Error(message);
  error.name = name;
  (error as { code?: number }).code = name === 'AbortError' ? 20 : 23;
  return error;
}

/** An AbortSignal: `aborted`, `reason`, `onabort`, listeners, `throwIfAborted`. */
class FallbackAbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: { type: string }) => void) | null = null;
  readonly #listeners: Array<{ listener: (event: { type: string }) => void; once: boolean }> = [];
  addEventListener(type: string, listener: (event: { type: string }) => void, options?: { once?: boolean }): void {
    if (type === 'abort') this.#listeners.push({ listener, once: options?.once === true });
  }
  removeEventListener(type: string, listener: (event: { type: string }) => void): void {
    const at = this.#listeners.findIndex((entry) => entry.listener === listener);
    if (type === 'abort' && at !== -1) this.#listeners.splice(at, 1);
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
  /** Aborts once: sets the reason and tells every listener. */
  _abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? domError('AbortError', 'This operation was aborted') : reason;
    const event = { type: 'abort', target: this };
    this.onabort?.(event);
    for (const entry of this.#listeners.splice(0)) entry.listener.call(this, event);
  }
  static abort(reason?: unknown): FallbackAbortSignal {
    const signal = new FallbackAbortSignal();
    signal._abort(reason);
    return signal;
  }
  /** A signal that aborts with a `TimeoutError` after `ms`; its timer does not hold the process open. */
  static timeout(ms: number): FallbackAbortSignal {
    const signal = new FallbackAbortSignal();
    setTimeout(() => signal._abort(domError('TimeoutError', 'The operation was aborted due to timeout')), ms).unref();
    return signal;
  }
}

class FallbackAbortController {
  readonly signal = new FallbackAbortSignal();
  abort(reason?: unknown): void {
    this.signal._abort(reason);
  }
}

type BodyInit =
  | string
  | Uint8Array
  | ArrayBuffer
  | URLSearchParams
  | FallbackFormData
  | FallbackBlob
  | null
  | undefined;

/** A body's bytes and the Content-Type it implies. */
function encodeBody(body: BodyInit): { bytes: Buffer | undefined; type: string | undefined } {
  if (body === undefined || body === null) return { bytes: undefined, type: undefined };
  if (typeof body === 'string') return { bytes: Buffer.from(body, 'utf8'), type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams)
    return { bytes: Buffer.from(body.toString(), 'utf8'), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof FallbackFormData) {
    const { bytes, type } = body._encode();
    return { bytes, type };
  }
  if (body instanceof FallbackBlob) return { bytes: body._bytes(), type: body.type || undefined };
  return { bytes: toBuffer(body), type: undefined };
}

/** What Request and Response share: a body read once, whole. */
class Body {
  readonly #bytes: Buffer | undefined;
  #used = false;
  constructor(bytes: Buffer | undefined) {
    this.#bytes = bytes;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  get body(): null | Buffer {
    return this.#bytes ?? null;
  }
  #take(): Buffer {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes ?? Buffer.alloc(0);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return arrayBufferOf(this.#take());
  }
  async text(): Promise<string> {
    return this.#take().toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
  async blob(): Promise<FallbackBlob> {
    return new FallbackBlob([this.#take()], {
      type: (this as unknown as { headers: FallbackHeaders }).headers.get('content-type') ?? '',
    });
  }
  /** The bytes, unread, for clone(). */
  _peek(): Buffer | undefined {
    return this.#bytes;
  }
}

function headersOf(init: HeadersInit | undefined): FallbackHeaders {
  if (init instanceof FallbackHeaders) return new FallbackHeaders([...init]);
  return new FallbackHeaders(init as Record<string, string> | Iterable<readonly [string, string]> | undefined);
}

interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit;
  redirect?: 'follow' | 'manual' | 'error';
  signal?: FallbackAbortSignal | null;
}

class FallbackRequest extends Body {
  readonly url: string;
  readonly method: string;
  readonly headers: FallbackHeaders;
  readonly redirect: 'follow' | 'manual' | 'error';
  readonly signal: FallbackAbortSignal;
  constructor(input: string | URL | FallbackRequest, init: RequestInit = {}) {
    const from = input instanceof FallbackRequest ? input : undefined;
    const { bytes, type } = init.body !== undefined ? encodeBody(init.body) : { bytes: from?._peek(), type: undefined };
    super(bytes);
    this.url = new URL(from?.url ?? String(input)).href;
    this.method = (init.method ?? from?.method ?? 'GET').toUpperCase();
    this.headers = headersOf(init.headers ?? from?.headers);
    if (type !== undefined && !this.headers.has('content-type')) this.headers.set('content-type', type);
    this.redirect = init.redirect ?? from?.redirect ?? 'follow';
    this.signal = init.signal ?? from?.signal ?? new FallbackAbortSignal();
    if ((this.method === 'GET' || this.method === 'HEAD') && bytes !== undefined)
      throw new TypeError('Request with GET/HEAD method cannot have body.');
  }
  clone(): FallbackRequest {
    return new FallbackRequest(this);
  }
}

interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

class FallbackResponse extends Body {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FallbackHeaders;
  readonly type = 'basic';
  url = '';
  redirected = false;
  constructor(body?: BodyInit, init: ResponseInit = {}) {
    const { bytes, type } = encodeBody(body);
    super(bytes);
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = headersOf(init.headers);
    if (type !== undefined && !this.headers.has('content-type')) this.headers.set('content-type', type);
  }
  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }
  clone(): FallbackResponse {
    const copy = new FallbackResponse(this._peek(), {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
    copy.url = this.url;
    copy.redirected = this.redirected;
    return copy;
  }
  static json(data: unknown, init: ResponseInit = {}): FallbackResponse {
    const headers = headersOf(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new FallbackResponse(JSON.stringify(data), { ...init, headers });
  }
  static error(): FallbackResponse {
    return new FallbackResponse(null, { status: 0 });
  }
  static redirect(url: string, status = 302): FallbackResponse {
    return new FallbackResponse(null, { status, headers: { location: new URL(url).href } });
  }
}

function networkError(cause: unknown): TypeError {
  const error = new TypeError('fetch failed');
  (error as { cause?: unknown }).cause = cause;
  return error;
}

/** The answer's bytes, decoded by its Content-Encoding. */
function readAnswer(res: IncomingMessage): Promise<Buffer> {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const stream = decoder === undefined ? res : res.pipe(decoder);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
    if (decoder !== undefined) res.on('error', reject);
  });
}

/** One request on the wire; resolves with the answer (not following redirects). */
function send(request: FallbackRequest, url: URL, bytes: Buffer | undefined): Promise<FallbackResponse> {
  return new Promise((resolve, reject) => {
    const signal = request.signal;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const client = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (client === undefined) {
      reject(networkError(new Error(`unsupported protocol ${url.protocol}`)));
      return;
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    headers['accept'] ??= '*/*';
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    if (bytes !== undefined) headers['content-length'] = String(bytes.length);
    const req = client(url, { method: request.method, headers });
    const onAbort = (): void => {
      req.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => signal.removeEventListener('abort', onAbort);
    req.on('error', (error) => {
      done();
      reject(signal.aborted ? signal.reason : networkError(error));
    });
    req.on('response', (res) => {
      readAnswer(res).then(
        (body) => {
          done();
          const out = new FallbackResponse(request.method === 'HEAD' ? null : body, {
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
          });
          const raw = res.rawHeaders;
          for (let i = 0; i + 1 < raw.length; i += 2) out.headers.append(raw[i]!, raw[i + 1]!);
          out.url = url.href;
          resolve(out);
        },
        (error: unknown) => {
          done();
          reject(signal.aborted ? signal.reason : networkError(error));
        },
      );
    });
    req.end(bytes);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * fetch over node:http and node:https.
 * @example const res = await fallbackFetch('http://game-rank.inner-call.dyc.ivolces.com/top', { signal: AbortSignal.timeout(3000) })
 */
export async function fallbackFetch(
  input: string | URL | FallbackRequest,
  init?: RequestInit,
): Promise<FallbackResponse> {
  const request = new FallbackRequest(input, init);
  let url = new URL(request.url);
  let method = request.method;
  let bytes = request._peek();
  let headers = request.headers;
  for (let hops = 0; ; hops++) {
    const answer = await send(
      new FallbackRequest(url.href, { method, headers, body: bytes, signal: request.signal }),
      url,
      bytes,
    );
    const location = answer.headers.get('location');
    if (!REDIRECTS.has(answer.status) || location === null || request.redirect === 'manual') {
      answer.redirected = hops > 0;
      return answer;
    }
    if (request.redirect === 'error') throw networkError(new Error(`unexpected redirect to ${location}`));
    if (hops >= 20) throw networkError(new Error('redirect count exceeded'));
    const next = new URL(location, url);
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      bytes = undefined;
      headers = headersOf(headers);
      for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'])
        headers.delete(name);
    }
    if (next.origin !== url.origin) {
      headers = headersOf(headers);
      for (const name of ['authorization', 'cookie', 'proxy-authorization']) headers.delete(name);
    }
    url = next;
  }
}

/** The globals this module defines, each only where the runtime lacks it. */
const GLOBALS: Record<string, unknown> = {
  fetch: fallbackFetch,
  Headers: FallbackHeaders,
  Request: FallbackRequest,
  Response: FallbackResponse,
  AbortController: FallbackAbortController,
  AbortSignal: FallbackAbortSignal,
  FormData: FallbackFormData,
  Blob: FallbackBlob,
};

// fetch and its classes come as one set: a Node with a global fetch keeps all of its own.
if (typeof (globalThis as { fetch?: unknown }).fetch !== 'function') {
  for (const [name, value] of Object.entries(GLOBALS)) {
    if ((globalThis as Record<string, unknown>)[name] === undefined)
      Object.defineProperty(globalThis, name, { configurable: true, writable: true, value });
  }
}

export {
  FallbackAbortController,
  FallbackAbortSignal,
  FallbackBlob,
  FallbackFormData,
  FallbackRequest,
  FallbackResponse,
};
