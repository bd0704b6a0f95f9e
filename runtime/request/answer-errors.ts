/**
 * The runtime's error codes of an answer gone wrong: the function failed (its message stays in
 * the log), or its stream sent other than the Content-Length it declared. Raised only by the
 * code that writes such answers (error-answer.ts, stream-answer.ts), which loads after start, so
 * they are a table of their own (errors.ts says why).
 */
import { type CloudfnError, type CreateError, defineErrorTable, type ErrorSpec, exposedError } from '../errors.js';

const table = {
  CLOUDFN_BAD_RESPONSE_LENGTH: {
    status: 500,
    message: (declared: number, sent: string) =>
      `the function declared Content-Length ${declared} but its stream sent ${sent} bytes; send exactly that many bytes, or set no Content-Length on a stream`,
  },
  CLOUDFN_HANDLER_ERROR: {
    status: 500,
    message: () => `the function failed; look up this logid in the function's logs`,
  },
} satisfies Record<string, ErrorSpec>;

export type AnswerErrorCode = keyof typeof table;

// Written for the reader, as the runtime's own messages are: exposed whatever the status.
const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The rows of this table, joined into `runtimeErrors` (all-errors.ts). */
export const answerErrors: Readonly<Record<AnswerErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` (a `CloudfnError`, as `createError` of errors.ts builds).
 * @example throw createAnswerError('CLOUDFN_BAD_RESPONSE_LENGTH', 10, '12')
 */
export const createAnswerError: CreateError<typeof table, CloudfnError> = errors.create;
