/**
 * What a before-routing hook of a local service (the console, the timers' trigger endpoint, the
 * live rooms, the WebSocket push API) reads and writes: its JSON answers, written once here, and
 * its request bodies, read whole with the runtime's reader up to a limit. The request pipeline
 * has its own writer (request/response.ts); these are for the hooks beside it.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { readBody } from '../body/read-body.js';
import { CloudfnError } from '../errors.js';
import { generateLogid } from '../log/logid.js';
import { errorBody } from '../request/error-body.js';

/** How `sendJson` writes. */
export interface JsonAnswerOptions {
  /** A HEAD request: the headers only. @default false */
  head?: boolean;
  /** Headers beside the content type and length (`allow`, `retry-after`). @default none */
  headers?: OutgoingHttpHeaders;
}

/**
 * Writes `json` (JSON text, such as `errorBody` gives) as the whole answer, never cached.
 * @example sendJsonText(res, 404, errorBody(code, message, logid))
 */
export function sendJsonText(res: ServerResponse, status: number, json: string, options: JsonAnswerOptions = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
    'cache-control': 'no-store',
    ...options.headers,
  });
  res.end(options.head === true ? undefined : json);
}

/**
 * Writes `value` as JSON, the whole answer, never cached.
 * @example sendJson(res, 200, { connections })
 */
export function sendJson(res: ServerResponse, status: number, value: unknown, options: JsonAnswerOptions = {}): void {
  sendJsonText(res, status, JSON.stringify(value), options);
}

/**
 * Answers `error` in the JSON error shape with a fresh logid: a `CloudfnError` with its status
 * and message, anything else as a 500 `CLOUDFN_HANDLER_ERROR` with its message (a hook's
 * answers go to the developer); a 405 names the `allow`ed methods.
 * @example sendJsonError(res, createScheduleError('CLOUDFN_TRIGGER_METHOD', 'GET'), { allow: 'POST' })
 */
export function sendJsonError(res: ServerResponse, error: unknown, options: { allow?: string } = {}): void {
  const failure =
    error instanceof CloudfnError
      ? error
      : new CloudfnError('CLOUDFN_HANDLER_ERROR', 500, error instanceof Error ? error.message : String(error));
  sendJsonText(res, failure.status, errorBody(failure.code, failure.message, generateLogid()), {
    ...(failure.status === 405 && options.allow !== undefined ? { headers: { allow: options.allow } } : {}),
  });
}

/**
 * Reads the whole body with the runtime's reader (serve/../body/read-body.ts), or resolves
 * undefined once it passes `limit` bytes; other failures (a bad encoding, a reset) reject.
 * @example const body = await readBodyUpTo(req, 1_048_576); if (body === undefined) return sendJson(res, 413, ...)
 */
export async function readBodyUpTo(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  try {
    return await readBody(req, limit, 'limit');
  } catch (error) {
    if (error instanceof CloudfnError && error.code === 'CLOUDFN_BODY_TOO_LARGE') return undefined;
    throw error;
  }
}
