/**
 * The build's table of error codes (same shape as runtime/errors.ts): what `cloudfn build`
 * refuses before it bundles anything, the type check, the platform's limits on a function
 * service and the Node 15+ globals a function-service file may not use. Compile errors use the runtime's `CLOUDFN_COMPILE_ERROR`.
 */
import type { CloudfnError, CreateError, ErrorSpec } from '../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../runtime/errors.js';

const table = {
  CLOUDFN_TYPE_ERRORS: {
    status: 500,
    message: (report: string) =>
      `type check failed with ${report}\nfix them (npm run typecheck shows them too), or pass --no-typecheck to build anyway`,
  },
  CLOUDFN_FUNCTION_SERVICE_LIMIT: {
    status: 500,
    message: (limit: string, found: string, fix: string) =>
      `the platform's function service ${limit}; this project ${found}. ${fix}`,
  },
  CLOUDFN_NODE14_GLOBAL: {
    status: 500,
    message: (where: string, name: string, fix: string) =>
      `${where}: ${name} is not in Node 14, the function service's runtime, and cloudfn does not provide it; ${fix}`,
  },
} satisfies Record<string, ErrorSpec>;

export type BuildErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The build's error table, exported for the documentation test. */
export const buildErrors: Readonly<Record<BuildErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is shown to the developer, so it is exposed.
 * @example throw createBuildError('CLOUDFN_TYPE_ERRORS', '2 errors in 1 file')
 */
export const createBuildError: CreateError<typeof table, CloudfnError> = errors.create;
