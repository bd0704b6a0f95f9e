/**
 * The answer to an error, after `sendError` (response.ts) claimed the request: the message the
 * client may read, the log line of a crash with its stack and causes, the JSON error body
 * (error-body.ts) with its headers (`Allow` on a 405, `Retry-After` on a refusal under load),
 * and the request line's `error`; and the line of a request left unrun behind a closing answer.
 * Rarely needed at start, so a bundle loads it as a chunk when the app is created, off the
 * start-up path (issue 44).
 */
import { CloudfnError } from '../errors.js';
import { createAnswerError } from './answer-errors.js';
import { issuesText } from '../contract/pointer.js';
import type { IncomingMessage } from 'node:http';
import type { Exchange, Host } from './exchange.js';
import { errorBody } from './error-body.js';
import { finish } from './finish.js';
import { end, headersFor, JSON_TYPE } from './response-head.js';

/** A load refusal that knows how long the client should wait (memory-budget.ts); 1 s when unset. */
export type RetryAfterError = CloudfnError & { retryAfter?: number };

/**
 * The message of a thrown value and of the errors that caused it (`fetch failed`'s
 * `getaddrinfo ENOTFOUND ws-push.example`), up to three deep: the line names why, not only what.
 * @example withCauses(new TypeError('fetch failed', { cause })) // 'fetch failed (cause: getaddrinfo ENOTFOUND a.b [ENOTFOUND])'
 */
export function withCauses(error: unknown): string {
  return error instanceof Error ? `${error.message}${causes(error)}` : String(error);
}

function causes(error: Error): string {
  let out = '';
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause !== undefined && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    const message = cause instanceof Error ? cause.message : String(cause);
    out += ` (cause: ${message}${typeof code === 'string' && !message.includes(code) ? ` [${code}]` : ''})`;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return out;
}

/**
 * Writes the answer to an error for a request `sendError` (response.ts) has claimed: a
 * `CloudfnError` keeps its status and (below 500) its message; anything else is a 500 whose
 * message stays in the log unless `exposeErrors` is on (dev).
 */
export function answerError(x: Exchange, error: unknown): void {
  const known = error instanceof CloudfnError ? error : undefined;
  const status = known?.status ?? 500;
  const code = known?.code ?? 'CLOUDFN_HANDLER_ERROR';
  let message = known?.expose ? known.message : createAnswerError('CLOUDFN_HANDLER_ERROR').message;
  if (!known?.expose) {
    // A crash: its message and stack go to the log, never to the client (unless in dev).
    const detail = withCauses(error);
    x.line('error', `the function failed: ${detail}`, {
      code,
      stack: error instanceof Error ? error.stack : undefined,
    });
    if (x.host.options.exposeErrors)
      message = error instanceof Error ? `${error.stack ?? error.message}${causes(error)}` : String(error);
  }
  const issues = known?.issues;
  const body = errorBody(code, message, x.logid, issues);
  const bytes = Buffer.byteLength(body);
  const headers = headersFor(x, {
    contentType: JSON_TYPE,
    length: bytes,
    handlerHeaders: known?.name === 'HttpError',
    close: x.host.closing || x.closeConnection,
    allow: status === 405,
    retryAfter:
      code === 'CLOUDFN_OVERLOADED' || code === 'CLOUDFN_TOO_MANY_CONNECTIONS'
        ? ((known as RetryAfterError).retryAfter ?? 1)
        : undefined,
  });
  end(x, status, headers, body);
  finish(x, status, bytes, known === undefined ? undefined : errorNote(code, known.message, issues));
}

/** The request line's `error`: `CODE: message`, and every issue of a refusal of params. */
function errorNote(code: string, message: string, issues: CloudfnError['issues']): string {
  return issues === undefined ? `${code}: ${message}` : `${code}: ${message} [issues: ${issuesText(issues)}]`;
}

/**
 * The line of a request left unrun because it was pipelined behind an answer that closes the
 * connection (handle.ts): it could never be answered, so it is not run at all.
 */
export function logNotRun(host: Host, req: IncomingMessage, logid: string): void {
  host.logger.line(
    'warn',
    logid,
    '',
    `${req.method ?? ''} ${req.url ?? ''} was not run: it was pipelined behind an answer that closes the connection; send it again on a new connection`,
  );
}
