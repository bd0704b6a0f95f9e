/**
 * A middleware for plain `node:http` and Express-style servers that verifies signed callbacks.
 * It reads the raw bytes itself, before any body parser can re-serialize them (platform
 * contract, Signing: "binding it to a typed object can reorder fields and break verification").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody as readRequestBody } from '../../runtime/body/read-body.js';
import { CloudfnError } from '../../runtime/errors.js';
import { verifyCallback, type VerifiedCallback, type VerifyCallbackOptions } from './callback.js';
import { SignatureError } from './errors.js';

/** Options of `callbackMiddleware`: those of `verifyCallback`, less headers and body. */
export interface CallbackMiddlewareOptions extends Omit<VerifyCallbackOptions, 'headers' | 'rawBody'> {
  /** Largest callback body read, in bytes; a larger one is answered 413. @default 1048576 (1 MiB) */
  limit?: number;
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
  const { limit = 1_048_576, ...verifyOptions } = options;
  if (!Number.isInteger(limit) || limit < 0)
    throw new TypeError(`option limit must be a whole number of bytes, got ${String(limit)}`);
  return (req, res, next) => {
    handle(req as CallbackRequest, res, verifyOptions, limit).then(
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
): Promise<boolean> {
  let raw: Buffer;
  if (Buffer.isBuffer(req.rawBody)) raw = req.rawBody;
  else if (Buffer.isBuffer(req.body)) raw = req.body;
  else if (req.body !== undefined || req.readableEnded) {
    throw new TypeError(
      'callbackMiddleware runs after a body parser consumed the raw bytes; mount it before express.json() (or after express.raw())',
    );
  } else {
    const read = await readBody(req, limit);
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

/** Reads the whole body with the runtime's reader, or gives undefined once it passes `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  try {
    return await readRequestBody(req, limit, 'limit');
  } catch (error) {
    if (error instanceof CloudfnError && error.code === 'CLOUDFN_BODY_TOO_LARGE') return undefined;
    throw error;
  }
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
