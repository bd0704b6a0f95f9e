/**
 * Every error code of the runtime, as one table: the request pipeline's (errors.ts) and those
 * raised only by code loaded on first need (a function module's, a contract's, a multipart
 * body's, the metrics', an answer's). Exported by `cloudfn/runtime` and read by the
 * documentation test; the runtime's own code imports the table it raises from, so a bundle
 * carries only the messages it may send.
 */
import type { ErrorSpec } from './error-table.js';
import { type RequestErrorCode, requestErrors } from './errors.js';
import { type ContractErrorCode, contractErrors } from './contract/errors.js';
import { type MultipartErrorCode, multipartErrors } from './body/multipart-errors.js';
import { type MetricsErrorCode, metricsErrors } from './metrics/errors.js';
import { type AnswerErrorCode, answerErrors } from './request/answer-errors.js';
import { type ModuleErrorCode, moduleErrors } from './serve/module-errors.js';

/** Every code of the runtime's tables. */
export type RuntimeErrorCode =
  | RequestErrorCode
  | ModuleErrorCode
  | ContractErrorCode
  | MultipartErrorCode
  | MetricsErrorCode
  | AnswerErrorCode;

/** The runtime's error codes, each with its status and message. */
export const runtimeErrors: Readonly<Record<RuntimeErrorCode, ErrorSpec>> = {
  ...requestErrors,
  ...moduleErrors,
  ...contractErrors,
  ...multipartErrors,
  ...metricsErrors,
  ...answerErrors,
};
