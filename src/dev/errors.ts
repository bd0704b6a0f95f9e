/**
 * The dev server's table of error codes (same shape as runtime/errors.ts). Compile errors use
 * the runtime's `CLOUDFN_COMPILE_ERROR`; these rows cover what only `cloudfn dev` does.
 */
import type { CloudfnError, CreateError, ErrorSpec } from '../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../runtime/errors.js';

const table = {
  CLOUDFN_DEV_LOAD_FAILED: {
    status: 500,
    message: (file: string, detail: string) => `${file} compiled but failed to load (fix it and save): ${detail}`,
  },
  CLOUDFN_DEV_LOAD_TIMEOUT: {
    status: 503,
    message: (file: string, after: string) =>
      `${file} did not finish loading: its top-level await has not settled after ${after} (a connect or fetch at top level that never answers?). The other functions keep serving; fix or remove the file and save, or raise loadTimeout`,
  },
  CLOUDFN_DEV_CONSOLE_NOT_FOUND: {
    status: 404,
    message: (path: string) =>
      `the dev console has nothing at ${path}; open /_cloudfn/ for the page or /_cloudfn/api/functions`,
  },
  CLOUDFN_DEV_CONSOLE_METHOD: {
    status: 405,
    message: (method: string) => `method ${method} is not allowed on the dev console; its pages and API answer GET`,
  },
  CLOUDFN_DEV_PAGE_MISSING: {
    status: 500,
    message: (tried: string) =>
      `the console page sources were not found (looked in ${tried}); reinstall cloudfn, or run cloudfn dev from its checkout`,
  },
  CLOUDFN_DEV_INSPECT: {
    status: 500,
    message: (spec: string, detail: string) => `--inspect=${spec} could not open the debugger: ${detail}`,
  },
} satisfies Record<string, ErrorSpec>;

export type DevErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The dev server's error table, exported for the documentation test. */
export const devErrors: Readonly<Record<DevErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is shown to the developer, so it is exposed.
 * @example throw createDevError('CLOUDFN_DEV_CONSOLE_NOT_FOUND', '/_cloudfn/nope')
 */
export const createDevError: CreateError<typeof table, CloudfnError> = errors.create;
