/**
 * The components' table of error codes (same shape as runtime/errors.ts): a bad `components`
 * setting, a server binary that is not installed, and a server that did not start.
 */
import type { CloudfnError, CreateError, ErrorSpec } from '../../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../../runtime/errors.js';

const table = {
  CLOUDFN_COMPONENT_SETTING: {
    status: 500,
    message: (key: string, value: string, fix: string) => `components.${key} ${value}: ${fix}`,
  },
  CLOUDFN_COMPONENT_NOT_INSTALLED: {
    status: 500,
    message: (key: string, binaries: string, install: string, example: string) =>
      `components.${key}: ${binaries} is not installed; install it (${install}) or point at a running server with "components": { "${key}": "${example}" }`,
  },
  CLOUDFN_COMPONENT_START_FAILED: {
    status: 500,
    message: (key: string, detail: string, log: string) =>
      `components.${key}: the local server did not start: ${detail}; its log is ${log}`,
  },
} satisfies Record<string, ErrorSpec>;

export type ComponentErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The components' error table, exported for the documentation test. */
export const componentErrors: Readonly<Record<ComponentErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is for the developer, so it is exposed.
 * @example throw createComponentError('CLOUDFN_COMPONENT_SETTING', 'mongo', 'true', 'give a mongodb:// URL')
 */
export const createComponentError: CreateError<typeof table, CloudfnError> = errors.create;
