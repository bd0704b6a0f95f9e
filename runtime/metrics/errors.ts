/**
 * The runtime's error code of the metrics: on, but prom-client (an optional peer) cannot be
 * loaded. Raised only while a server with metrics on starts (serve/import-metrics.ts, which a
 * server without metrics does not import), so it is a table of its own (errors.ts says why).
 */
import { type CloudfnError, type CreateError, defineErrorTable, type ErrorSpec, exposedError } from '../errors.js';

const table = {
  CLOUDFN_METRICS_UNAVAILABLE: {
    status: 500,
    message: (detail: string) =>
      `metrics are on but cannot be loaded (${detail}); install prom-client beside cloudfn, or deploy the whole bundle folder with its _chunks`,
  },
} satisfies Record<string, ErrorSpec>;

export type MetricsErrorCode = keyof typeof table;

// Written for the reader, as the runtime's own messages are: exposed whatever the status.
const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The rows of this table, joined into `runtimeErrors` (all-errors.ts). */
export const metricsErrors: Readonly<Record<MetricsErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` (a `CloudfnError`, as `createError` of errors.ts builds).
 * @example throw createMetricsError('CLOUDFN_METRICS_UNAVAILABLE', "Cannot find package 'prom-client'")
 */
export const createMetricsError: CreateError<typeof table, CloudfnError> = errors.create;
