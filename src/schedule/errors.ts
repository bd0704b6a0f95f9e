/**
 * The timer triggers' table of error codes (same shape as runtime/errors.ts): a bad
 * `config.schedule`, and the on-demand trigger endpoint's refusals.
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import type { CloudfnError, CreateError, ErrorSpec } from '../../runtime/errors.js';
import { defineErrorTable, exposedError } from '../../runtime/errors.js';

const table = {
  CLOUDFN_BAD_SCHEDULE: {
    status: 500,
    message: (where: string, value: string, detail: string) =>
      `${where}: config.schedule ${JSON.stringify(value)} ${detail}; write 5 fields (minute hour day month weekday, e.g. "*/5 * * * *"), or 6 with seconds first ("0 */5 * * * *"), or 7 with a year last`,
  },
  CLOUDFN_TRIGGER_NOT_FOUND: {
    status: 404,
    message: (name: string, scheduled: string) =>
      `no function ${JSON.stringify(name)} has a config.schedule; the scheduled functions are: ${scheduled}`,
  },
  CLOUDFN_TRIGGER_METHOD: {
    status: 405,
    message: (method: string) => `method ${method} is not allowed on ${CLOUDFN_PREFIX}/trigger/<function>; send POST`,
  },
} satisfies Record<string, ErrorSpec>;

export type ScheduleErrorCode = keyof typeof table;

const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The timer triggers' error table, exported for the documentation test. */
export const scheduleErrors: Readonly<Record<ScheduleErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`; its message is for the developer, so it is exposed.
 * @example throw createScheduleError('CLOUDFN_TRIGGER_NOT_FOUND', 'nope', 'cleanup')
 */
export const createScheduleError: CreateError<typeof table, CloudfnError> = errors.create;
