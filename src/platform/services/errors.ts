/**
 * The services' table of error codes (same shape as runtime/errors.ts): a bad `serviceId` or
 * `innerCall` setting, and a dev session whose services cannot run together.
 */
import type { CloudfnError, CreateError, ErrorSpec } from '../../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../../runtime/errors.js';

const table = {
  CLOUDFN_SERVICE_SETTING: {
    status: 500,
    message: (where: string, value: string, fix: string) => `${where} ${value}: ${fix}`,
  },
  CLOUDFN_SERVICE_SESSION: {
    status: 500,
    message: (detail: string, fix: string) => `${detail}; ${fix}`,
  },
} satisfies Record<string, ErrorSpec>;

export type ServiceErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The services' error table, exported for the documentation test. */
export const serviceErrors: Readonly<Record<ServiceErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is for the developer, so it is exposed.
 * @example throw createServiceError('CLOUDFN_SERVICE_SETTING', 'game/cloudfn.config.json serviceId', '"Game"', 'use lower-case letters')
 */
export const createServiceError: CreateError<typeof table, CloudfnError> = errors.create;
