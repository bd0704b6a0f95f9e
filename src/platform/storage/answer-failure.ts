/**
 * How the storage's dev routes (files-routes.ts, console-api.ts) answer a failure: in the JSON
 * error shape with a fresh logid, a `PlatformError` with its status and code, a refusal of the
 * object store (its TOS code, `NoSuchKey`, and status) as it is, anything else as a 500
 * `PLATFORM_INTERNAL`. An answer already begun (a download cut by a read error) is cut.
 */
import type { ServerResponse } from 'node:http';
import { generateLogid } from '../../../runtime/log/logid.js';
import { errorBody } from '../../../runtime/request/error-body.js';
import { sendJsonText } from '../../../runtime/serve/hook-io.js';
import { PlatformError, platformError } from '../errors.js';

/**
 * Answers `error`.
 * @example work.catch((error) => answerFailure(res, error))
 */
export function answerFailure(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const store = error as { code?: unknown; status?: unknown; message?: unknown };
  const [status, code, message] =
    error instanceof PlatformError
      ? [error.status, error.code, error.message]
      : typeof store?.code === 'string' && Number.isInteger(store.status) && typeof store.message === 'string'
        ? [store.status as number, store.code, store.message]
        : [500, 'PLATFORM_INTERNAL', platformError('PLATFORM_INTERNAL', String(error)).message];
  sendJsonText(res, status, errorBody(code, message, generateLogid()));
}
