/**
 * The app's table of error codes (same shape as runtime/errors.ts): an app root whose
 * `services` cannot be read, and a data file (`cloudfn db import`, `--seed`, `seedDatabase`)
 * or a component's data that cannot be exported, imported or reset.
 */
import type { CloudfnError, CreateError, ErrorSpec } from '../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../runtime/errors.js';

const table = {
  CLOUDFN_APP_CONFIG: {
    status: 500,
    message: (file: string, detail: string, fix: string) => `${file}: ${detail}; ${fix}`,
  },
  CLOUDFN_APP_DATA: {
    status: 500,
    message: (source: string, detail: string) => `${source}: ${detail}`,
  },
} satisfies Record<string, ErrorSpec>;

export type AppErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The app's error table, exported for the documentation test. */
export const appErrors: Readonly<Record<AppErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is for the developer, so it is exposed.
 * @example throw createAppError('CLOUDFN_APP_DATA', 'backup.json', 'redis key "a": ttlMs must be a whole number')
 */
export const createAppError: CreateError<typeof table, CloudfnError> = errors.create;
