/**
 * The media client's table of error codes (same shape as runtime/errors.ts): code → status +
 * a message that names the bad value and the fix. Every code has a `### CODE` heading in the
 * `media` section of docs/errors.md.
 */
import { defineErrorTable, type ErrorDetails, type ErrorSpec, TableError } from '../../runtime/errors.js';

const table = {
  MEDIA_INVALID_REQUEST: {
    status: 400,
    message: (operation: string, detail: string) => `${operation}: ${detail}; nothing was sent`,
  },
  MEDIA_API_ERROR: {
    status: 502,
    message: (operation: string, what: string, logId: string | undefined) =>
      `${operation} failed: ${what}${logId === undefined ? '' : ` (log_id ${logId})`}`,
  },
  MEDIA_FORGED_RESPONSE: {
    status: 502,
    message: (operation: string, status: number, detail: string) =>
      `${operation}: the ${status} response ${detail}, so it is treated as forged; check platformPublicKey (CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY) is the platform key of this mini-program`,
  },
  MEDIA_BAD_RESPONSE: {
    status: 502,
    message: (operation: string, status: number, detail: string) =>
      `${operation}: the ${status} response is not a media API envelope: ${detail}`,
  },
  MEDIA_NETWORK: {
    status: 502,
    message: (operation: string, url: string, detail: string) =>
      `${operation}: could not reach ${url}: ${detail}; check baseUrl (CLOUDFN_MEDIA_BASE_URL) and the network`,
  },
  MEDIA_TIMEOUT: {
    status: 504,
    message: (operation: string, ms: number) =>
      `${operation}: no response within ${ms} ms; raise timeoutMs (CLOUDFN_MEDIA_TIMEOUT_MS) or retry later`,
  },
  MEDIA_ABORTED: {
    status: 499,
    message: (operation: string, reason: string) => `${operation}: aborted by the caller's signal (${reason})`,
  },
  MEDIA_TOKEN: {
    status: 502,
    message: (detail: string) => `the client token could not be obtained: ${detail}`,
  },
  MEDIA_WAIT_TIMEOUT: {
    status: 504,
    message: (what: string, ms: number, last: string) =>
      `${what} did not finish within ${ms} ms (last seen: ${last}); raise the timeoutMs option of the helper`,
  },
  MEDIA_UPLOAD_FAILED: {
    status: 502,
    message: (sourceUrl: string, detail: string, logId: string | undefined) =>
      `upload of ${sourceUrl} failed: ${detail}${logId === undefined ? '' : ` (log_id ${logId})`}; check the URL serves the video file itself over http(s), then upload it again`,
  },
  MEDIA_TRANSCODE_FAILED: {
    status: 502,
    message: (vid: string, runId: string, msg: string) =>
      `transcoding of vid ${vid} failed: run ${runId} ended with run_status 9 (${msg || 'no run_status_msg'}); check the source file, then start it again`,
  },
  MEDIA_OPTIONS: {
    status: 500,
    message: (name: string, detail: string) => `media option ${name} is invalid: ${detail}`,
  },
} satisfies Record<string, ErrorSpec>;

export type MediaErrorCode = keyof typeof table;
type Details<C extends MediaErrorCode> = ErrorDetails<typeof table, C>;

/**
 * Any error the media client raises on purpose: a stable `code`, a `status` (the platform's
 * HTTP status for MEDIA_API_ERROR, the table's otherwise) and `operation` when it belongs to one
 * call. It is deliberately not a `CloudfnError`: one that escapes a handler becomes a logged
 * 500, because the platform's status (200 with a body-level code, 401 for cloudfn's own token)
 * says nothing true about the function's caller. Catch it and throw an `HttpError` to answer
 * something else.
 * @example
 * try { return await media.getVideoByVid({ vid }) }
 * catch (e) { if (e instanceof MediaApiError && e.errNo === MediaErrNo.VIDEO_NOT_EXIST) throw new HttpError(404, `no video ${vid}`); throw e }
 */
export class MediaError extends TableError<MediaErrorCode> {
  override name = 'MediaError';
  readonly operation: string | undefined;
  constructor(code: MediaErrorCode, status: number, message: string, operation?: string, options?: ErrorOptions) {
    super(code, status, message, options);
    this.operation = operation;
  }
}

const errors = /* @__PURE__ */ defineErrorTable(
  table,
  (code, message, row) => new MediaError(code, row.status, message),
);

/** The media error table, exported for the documentation test. */
export const mediaErrors: Readonly<Record<MediaErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` from the media table.
 * @example throw createMediaError('MEDIA_TIMEOUT', { operation: 'get_video_list' }, 'get_video_list', 10000)
 */
export function createMediaError<C extends MediaErrorCode>(
  code: C,
  context: { operation?: string; cause?: unknown },
  ...details: Details<C>
): MediaError {
  return new MediaError(
    code,
    table[code].status,
    errors.message(code, details),
    context.operation,
    context.cause === undefined ? undefined : { cause: context.cause },
  );
}

/**
 * A request body broke a documented limit; nothing was sent. `field` and `value` name what to fix.
 * @example
 * await media.getVideoList({ page_size: 50, page_number: 0 })
 * // MediaValidationError: get_video_list: page_size must be at most 20, got 50; nothing was sent
 */
export class MediaValidationError extends MediaError {
  override name = 'MediaValidationError';
  readonly field: string;
  readonly value: unknown;
  constructor(operation: string, issue: { field: string; value: unknown; message: string }) {
    super(
      'MEDIA_INVALID_REQUEST',
      table.MEDIA_INVALID_REQUEST.status,
      table.MEDIA_INVALID_REQUEST.message(operation, issue.message),
      operation,
    );
    this.field = issue.field;
    this.value = issue.value;
  }
}

/** What the platform answered when a call failed. */
export interface MediaApiErrorInit {
  operation: string;
  /** HTTP status of the response. */
  status: number;
  /** `err_no` of the body, when the body had one. */
  errNo: number | undefined;
  /** `err_msg` of the body ('' when none). */
  errMsg: string;
  /** `log_id` of the body, or the `x-platform-logid` header. */
  logId: string | undefined;
  /** The parsed body, when it was JSON. */
  body?: unknown;
}

/**
 * The platform refused a call: `err_no` was not 0 or the HTTP status was not 2xx. The
 * message reads `get_video_list failed: 40001 param error (log_id 2024...)`; `status` is the
 * platform's HTTP status (a handler that rethrows it answers with that status).
 * @example
 * try { await media.getVideoByVid({ vid }) } catch (e) {
 *   if (e instanceof MediaApiError && e.errNo === MediaErrNo.VIDEO_NOT_EXIST) return null;
 *   throw e;
 * }
 */
export class MediaApiError extends MediaError {
  override name = 'MediaApiError';
  override readonly operation: string;
  readonly errNo: number | undefined;
  readonly errMsg: string;
  readonly logId: string | undefined;
  readonly body: unknown;
  constructor(init: MediaApiErrorInit) {
    const what =
      init.errNo === undefined || init.errNo === 0
        ? `HTTP ${init.status}${init.errMsg && init.errMsg !== 'success' ? ` ${init.errMsg}` : ''}`
        : `${init.errNo} ${init.errMsg || '(no err_msg)'}`;
    super(
      'MEDIA_API_ERROR',
      init.status,
      table.MEDIA_API_ERROR.message(init.operation, what, init.logId),
      init.operation,
    );
    this.operation = init.operation;
    this.errNo = init.errNo;
    this.errMsg = init.errMsg;
    this.logId = init.logId;
    this.body = init.body;
  }
}
