/**
 * The runtime's error codes of a function's contract (`config.params`, `config.result`):
 * params that do not fit, a schema that throws, a result that does not fit. Raised only by the
 * contract's validation (validate.ts, loaded when a function declares a contract).
 */
import { type CloudfnError, type CreateError, defineErrorTable, type ErrorSpec, exposedError } from '../errors.js';

const table = {
  CLOUDFN_BAD_PARAMS: {
    status: 400,
    message: (path: string, detail: string, count: number) =>
      `the params ${path === '' ? '' : `at ${path} `}do not fit the function's config.params: ${detail}; send ${path === '' ? 'params of that shape' : 'a value that fits there'}${count > 1 ? ` (${count - 1} more issue${count > 2 ? 's' : ''} in issues)` : ''}`,
  },
  CLOUDFN_SCHEMA_FAILED: {
    status: 500,
    message: (file: string, which: string, detail: string) =>
      `the ${which} schema of ${file} (its config.${which}) threw instead of returning issues: ${detail}; fix the schema (a refinement that throws, an async check that rejects)`,
  },
  CLOUDFN_BAD_RESULT: {
    status: 500,
    message: (file: string, issues: string) =>
      `the function's result does not fit config.result of ${file}: ${issues}; fix the handler or the result schema`,
  },
} satisfies Record<string, ErrorSpec>;

export type ContractErrorCode = keyof typeof table;

// Written for the reader, as the runtime's own messages are: exposed whatever the status.
const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The rows of this table, joined into `runtimeErrors` (all-errors.ts). */
export const contractErrors: Readonly<Record<ContractErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` (a `CloudfnError`, as `createError` of errors.ts builds).
 * @example throw createContractError('CLOUDFN_BAD_PARAMS', '/name', 'expected a string', 1)
 */
export const createContractError: CreateError<typeof table, CloudfnError> = errors.create;
