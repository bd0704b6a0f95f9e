/**
 * A middleware for plain `node:http` and Express-style servers that verifies signed callbacks.
 * It reads the raw bytes itself, before any body parser can re-serialize them (platform
 * contract, Signing: "binding it to a typed object can reorder fields and break verification").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CloudfnError } from '../../runtime/errors.js';
import { readBodyUpTo } from '../../runtime/serve/hook-io.js';
import { verifyCallback, type VerifiedCallback, type VerifyCallbackOptions } from './callback.js';
import { SignatureError } from './errors.js';
import type { NonceStore } from './nonce.js';
import { sharedNonceStore } from './shared-nonces.js';

/** Options of `callbackMiddleware`: those of `verifyCallback`, less headers and body. */
export interface CallbackMiddlewareOptions extends Omit<VerifyCallbackOptions, 'headers' | 'rawBody'> {
  /** Largest callback body read, in bytes; a larger one is answered 413. @default 1048576 (1 MiB) */
  limit?: number;
  /**
   * De-duplicates notifications by their id (the body's top-level `id`, or `idField`): the
   * platform delivers at least once, so the same notification may come twice, to any
   * instance. The id is claimed atomically in the nonce store (Redis when `redis` or
   * CLOUDFN_REDIS_URL is set, so the whole fleet sees it) once the signature holds; a
   * duplicate is answered 200 `{"duplicate":true,"id":"..."}` without calling `next`. The claim
   * is released when the handler answers 5xx or the connection closes first, so the platform's
   * retry of a failed delivery is handled. A body without the id passes through.
   * @default false
   */
  dedupe?: boolean | { idField?: string; ttlSeconds?: number };
}

/** What the middleware adds to the request. */
export interface CallbackRequest extends IncomingMessage {
  /** The exact bytes received. */
  rawBody?: Buffer;
  /** The body: parsed JSON for a JSON content type, text otherwise (unless a parser already set it). */
  body?: unknown;
  /** The verified timestamp and nonce, the appid and which of its keys matched. */
  callback?: VerifiedCallback;
}

type Next = (error?: unknown) => void;

/**
 * Returns `(req, res, next)`: on a valid signature it sets `req.rawBody`, `req.body` and
 * `req.callback`, then calls `next()`; on a bad one it answers 401 with
 * `{"error":{"code":"SIGN_...","message":"..."}}` and does not call `next`.
 * Mount it before any body parser (or after `express.raw()`, whose Buffer it uses).
 * @example
 * app.post('/notify', callbackMiddleware({ publicKey: platformKey }), (req, res) => res.json({ ok: true }))
 * // one endpoint for every mini-program: the key of the body's app_id, from keys/platform/<appid>.pem
 * app.post('/notify', callbackMiddleware({ platformKeys: createPlatformKeyStore({ dir: 'keys/platform' }) }), handler)
 * // node:http
 * const verify = callbackMiddleware({ publicKey: platformKey })
 * http.createServer((req, res) => verify(req, res, (err) => err ? res.writeHead(500).end() : handle(req, res)))
 */
export function callbackMiddleware(
  options: CallbackMiddlewareOptions,
): (req: IncomingMessage, res: ServerResponse, next?: Next) => void {
  const { limit = 1_048_576, dedupe = false, ...verifyOptions } = options;
  if (!Number.isInteger(limit) || limit < 0)
    throw new TypeError(`option limit must be a whole number of bytes, got ${String(limit)}`);
  const claims = dedupeOptions(dedupe, verifyOptions);
  return (req, res, next) => {
    handle(req as CallbackRequest, res, verifyOptions, limit, claims).then(
      (ok) => {
        if (ok) next?.();
      },
      (error: unknown) => (next ? next(error) : fail(res, 500, 'CALLBACK_ERROR', String(error))),
    );
  };
}

async function handle(
  req: CallbackRequest,
  res: ServerResponse,
  options: Omit<VerifyCallbackOptions, 'headers' | 'rawBody'>,
  limit: number,
  claims: Claims | undefined,
): Promise<boolean> {
  let raw: Buffer;
  if (Buffer.isBuffer(req.rawBody)) raw = req.rawBody;
  else if (Buffer.isBuffer(req.body)) raw = req.body;
  else if (req.body !== undefined || req.readableEnded) {
    throw new TypeError(
      'callbackMiddleware runs after a body parser consumed the raw bytes; mount it before express.json() (or after express.raw())',
    );
  } else {
    const read = await readBodyUpTo(req, limit);
    if (read === undefined) {
      fail(res, 413, 'CALLBACK_TOO_LARGE', `the callback body is larger than ${limit} bytes; raise the limit option`);
      return false;
    }
    raw = read;
  }
  try {
    req.callback = await verifyCallback({ ...options, headers: req.headers, rawBody: raw });
  } catch (error) {
    // A shared nonce store that cannot answer fails closed with 503, which the platform retries.
    const unavailable = error instanceof CloudfnError && error.status === 503;
    if (!(error instanceof SignatureError) && !unavailable) throw error;
    fail(res, error.status, error.code, error.message);
    return false;
  }
  req.rawBody = raw;
  if (req.body === undefined || Buffer.isBuffer(req.body)) req.body = decode(raw, req.headers['content-type']);
  // body-parser skips requests marked as parsed; without it express.json() would wait on a drained stream.
  (req as { _body?: boolean })._body = true;
  if (claims === undefined) return true;
  try {
    return await claim(req, res, raw, claims);
  } catch (error) {
    if (!(error instanceof CloudfnError && error.status === 503)) throw error;
    fail(res, error.status, error.code, error.message);
    return false;
  }
}

/** How notifications are de-duplicated, resolved once per middleware. */
interface Claims {
  idField: string;
  ttlSeconds: number;
  store: () => NonceStore;
}

function dedupeOptions(
  dedupe: CallbackMiddlewareOptions['dedupe'],
  options: Omit<VerifyCallbackOptions, 'headers' | 'rawBody'>,
): Claims | undefined {
  if (dedupe === false || dedupe === undefined) return undefined;
  const { idField = 'id', ttlSeconds = 86_400 } = dedupe === true ? {} : dedupe;
  if (typeof idField !== 'string' || idField === '')
    throw new TypeError(`option dedupe.idField must be a field name, got ${JSON.stringify(idField)}`);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1)
    throw new TypeError(`option dedupe.ttlSeconds must be a whole number of seconds, got ${String(ttlSeconds)}`);
  const given = options.nonceStore;
  return {
    idField,
    ttlSeconds,
    store: given === undefined || given === false ? () => sharedNonceStore(options.redis) : () => given,
  };
}

/** Claims the notification's id: true to go on to the handler, false when it was a duplicate (answered 200). */
async function claim(req: CallbackRequest, res: ServerResponse, raw: Buffer, claims: Claims): Promise<boolean> {
  let id: unknown;
  try {
    id = (JSON.parse(raw.toString('utf8')) as Record<string, unknown>)?.[claims.idField];
  } catch {
    return true;
  }
  if ((typeof id !== 'string' && typeof id !== 'number') || id === '') return true;
  const store = claims.store();
  const key = `callback-id:${req.callback?.appid ?? ''}:${String(id)}`;
  if (await store.seen(key, claims.ttlSeconds, Date.now() / 1000)) {
    const body = JSON.stringify({ duplicate: true, id });
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    return false;
  }
  // A failed handling must not swallow the platform's retry: release the claim.
  const release = (): void => {
    res.off('finish', finished);
    res.off('close', closed);
    void Promise.resolve(store.forget?.(key)).catch(() => undefined);
  };
  const finished = (): void => {
    res.off('close', closed);
    if (res.statusCode >= 500) release();
  };
  const closed = (): void => {
    if (!res.writableFinished) release();
  };
  res.once('finish', finished);
  res.once('close', closed);
  return true;
}

function decode(raw: Buffer, type: string | undefined): unknown {
  const text = raw.toString('utf8');
  if (type !== undefined && /\bjson\b/i.test(type) && text !== '') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
