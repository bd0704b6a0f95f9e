/**
 * The runtime's error codes of a multipart body: malformed, or over a limit. Raised only by
 * the multipart parser (multipart.ts, multipart-scan.ts, loaded on the first multipart body).
 */
import { type CloudfnError, type CreateError, defineErrorTable, type ErrorSpec, exposedError } from '../errors.js';

const table = {
  CLOUDFN_BAD_MULTIPART: { status: 400, message: (detail: string) => `the multipart body is malformed: ${detail}` },
  CLOUDFN_MULTIPART_LIMIT: {
    status: 413,
    message: (limit: string, value: number, source: string) =>
      `the multipart body exceeds ${limit} (${value}), the limit set by ${source}; send less, or raise that limit`,
  },
} satisfies Record<string, ErrorSpec>;

export type MultipartErrorCode = keyof typeof table;

// Written for the reader, as the runtime's own messages are: exposed whatever the status.
const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The rows of this table, joined into `runtimeErrors` (all-errors.ts). */
export const multipartErrors: Readonly<Record<MultipartErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` (a `CloudfnError`, as `createError` of errors.ts builds).
 * @example throw createMultipartError('CLOUDFN_MULTIPART_LIMIT', 'maxFiles', 10, 'the default')
 */
export const createMultipartError: CreateError<typeof table, CloudfnError> = errors.create;
