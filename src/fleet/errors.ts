/**
 * The fleet's error table: a bad Redis setting, and Redis not answering where no fallback is
 * safe (the nonce store fails closed). Messages name the value and the fix.
 */
import { CloudfnError, defineErrorTable, type CreateError, type ErrorSpec } from '../../runtime/errors.js';

const table = {
  FLEET_BAD_SETTING: { status: 500, message: (where: string, detail: string) => `${where} ${detail}` },
  FLEET_NO_CLIENT: {
    status: 500,
    message: (source: string, detail: string) =>
      `${source} is set but the Redis client could not be loaded (${detail}); install it with npm install ioredis`,
  },
  FLEET_UNAVAILABLE: {
    status: 503,
    message: (what: string, detail: string) =>
      `${what} could not reach Redis (${detail}); the request was not accepted unchecked, retry later`,
  },
} satisfies Record<string, ErrorSpec>;

export type FleetErrorCode = keyof typeof table;

/** An error about the shared store, with its code and status. */
export class FleetError extends CloudfnError {
  override name = 'FleetError';
}

const errors = /* @__PURE__ */ defineErrorTable(table, (code, message, row) => {
  const error = new FleetError(code, row.status, message);
  (error as { expose: boolean }).expose = true;
  return error;
});

/** The fleet's error table, exported for the documentation test. */
export const fleetErrors: Readonly<Record<FleetErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`.
 * @example throw createFleetError('FLEET_UNAVAILABLE', 'the nonce store', 'timed out after 300 ms')
 */
export const createFleetError: CreateError<typeof table, FleetError> = errors.create;
