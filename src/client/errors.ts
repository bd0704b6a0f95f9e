/**
 * The client's table of error codes. A failed call reports `{ errMsg, code }` to `fail` (and
 * rejects the promise form with a `ContainerCallError`); `errMsg` follows the mini-program
 * convention `callContainer:fail <reason>`. `status` is what a gateway would answer for the same
 * failure; the call itself got no HTTP response.
 */
import { defineErrorTable, type CreateError, type ErrorSpec } from '../../runtime/errors.js';

const table = {
  CLIENT_BAD_OPTIONS: { status: 400, message: (detail: string) => `parameter error: ${detail}` },
  CLIENT_TIMEOUT: {
    status: 504,
    message: (ms: number, url: string) =>
      `timeout: no answer from ${url} within ${ms} ms; raise init.timeout or make the function faster`,
  },
  CLIENT_NETWORK: {
    status: 502,
    message: (url: string, detail: string) =>
      `network error calling ${url}: ${detail}; is the server running at that base URL?`,
  },
} satisfies Record<string, ErrorSpec>;

export type ClientErrorCode = keyof typeof table;

/** What `fail` receives. */
export interface ContainerFailure {
  /** `callContainer:fail <reason>`. */
  errMsg: string;
  code: ClientErrorCode;
}

/**
 * The rejection of the promise form: an Error carrying `errMsg` and `code`.
 * @example try { await client.callContainer({ path: '/x' }) } catch (e) { if (e instanceof ContainerCallError) e.code }
 */
export class ContainerCallError extends Error implements ContainerFailure {
  override name = 'ContainerCallError';
  readonly errMsg: string;
  readonly code: ClientErrorCode;
  constructor(code: ClientErrorCode, errMsg: string, options?: ErrorOptions) {
    super(errMsg, options);
    this.code = code;
    this.errMsg = errMsg;
  }
}

const errors = /* @__PURE__ */ defineErrorTable(
  table,
  (code, message) => new ContainerCallError(code, `callContainer:fail ${message}`),
);

/** The client's error table, exported for the documentation test. */
export const clientErrors: Readonly<Record<ClientErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code`.
 * @example createClientError('CLIENT_TIMEOUT', 60000, 'http://localhost:8000/hello')
 */
export const createClientError: CreateError<typeof table, ContainerCallError> = errors.create;
