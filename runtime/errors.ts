/**
 * The runtime's table of error codes for serving requests: one row per code with its HTTP
 * status and a message that names the bad value and the fix. Call sites throw
 * `createError(code, ...)`. The runtime's codes that only code loaded on first need raises have
 * their tables beside it, so a bundle's start code does not carry their messages (issue 44):
 * a function module's (serve/module-errors.ts), a contract's (contract/errors.ts), a multipart
 * body's (body/multipart-errors.ts), the metrics' (metrics/errors.ts), an answer's that went
 * wrong (request/answer-errors.ts); `runtimeErrors` (all-errors.ts) is them all together.
 * `test/errors-doc.test.ts` checks that every code of every table has an anchor in
 * `docs/errors.md`.
 */
import type { ParamsIssue } from './contract/pointer.js';
import { defineErrorTable, type CreateError, type ErrorSpec } from './error-table.js';

export {
  type CreateError,
  defineErrorTable,
  type ErrorDetails,
  type ErrorSpec,
  errorMessage,
  TableError,
} from './error-table.js';

const table = {
  CLOUDFN_NOT_FOUND: {
    status: 404,
    message: (path: string) => `no function is served at ${path}; add functions/<name>.ts or a route in cloudfn.config`,
  },
  CLOUDFN_METHOD_NOT_ALLOWED: {
    status: 405,
    message: (method: string) => `method ${method} is not allowed; functions answer GET and POST`,
  },
  CLOUDFN_BAD_PATH: { status: 400, message: (path: string, detail: string) => `the path ${path} ${detail}` },
  CLOUDFN_BAD_QUERY: {
    status: 400,
    message: (pair: string) =>
      `the query pair ${pair} has a bad percent-escape or escapes bytes that are not UTF-8; encode '%' as %25 and text as UTF-8`,
  },
  CLOUDFN_BAD_JSON: { status: 400, message: (detail: string) => `the body is not valid JSON: ${detail}` },
  CLOUDFN_POISONED_JSON: {
    status: 400,
    message: (key: string) =>
      `the JSON body has a "${key}" key, which is refused to protect prototypes; rename the field`,
  },
  CLOUDFN_BAD_FORM: {
    status: 400,
    message: (pair: string) =>
      `the urlencoded body has a bad pair ${pair} (a bad percent-escape or bytes that are not UTF-8); percent-encode UTF-8 text and '%' as %25`,
  },
  CLOUDFN_BAD_TEXT: {
    status: 400,
    message: (charset: string) =>
      `the text/plain body is not valid ${charset}; send ${charset} or name the body's charset in Content-Type`,
  },
  CLOUDFN_BAD_CHARSET: { status: 415, message: (charset: string) => `charset ${charset} is not supported; send utf-8` },
  CLOUDFN_UNSUPPORTED_ENCODING: {
    status: 415,
    message: (encoding: string) =>
      `Content-Encoding ${encoding} is not decoded by cloudfn; send the body uncompressed (identity)`,
  },
  CLOUDFN_BODY_TOO_LARGE: {
    status: 413,
    message: (limit: number, source: string) =>
      `the body is larger than ${limit} bytes, the limit set by ${source}; send less, or raise that limit`,
  },
  CLOUDFN_HEADERS_TOO_LARGE: {
    status: 431,
    message: (limit: number) => `the request headers are larger than ${limit} bytes; send fewer or shorter headers`,
  },
  CLOUDFN_REQUEST_TIMEOUT: {
    status: 408,
    message: () => `the request was not received in time; send the headers and body without pausing`,
  },
  CLOUDFN_BAD_REQUEST: { status: 400, message: (detail: string) => `the request could not be parsed: ${detail}` },
  CLOUDFN_MISSING_HOST: {
    status: 400,
    message: () => `the HTTP/1.1 request has no Host header; send Host (every HTTP/1.1 client does), or use HTTP/1.0`,
  },
  CLOUDFN_TOO_MANY_PARAMS: {
    status: 413,
    message: (where: string, limit: number, source: string) =>
      `the ${where} has more than ${limit} parameters, the limit set by ${source}; send fewer, or raise that limit`,
  },
  CLOUDFN_CHUNK_EXTENSIONS_TOO_LARGE: {
    status: 413,
    message: () => `a chunk of the body carries extensions over node's limit of 16 KiB; send chunks without extensions`,
  },
  CLOUDFN_TIMEOUT: {
    status: 504,
    message: (ms: number) => `the function timed out after ${ms} ms; make it faster or raise config.timeout`,
  },
  CLOUDFN_SHUTTING_DOWN: { status: 503, message: () => `the server is shutting down; retry on another connection` },
  CLOUDFN_OVERLOADED: {
    status: 503,
    message: (held: number, need: number, budget: number) =>
      `the server holds ${held} bytes of request bodies and unsent answers; this request needs ${need} more, over its memoryBudget of ${budget}; retry after the Retry-After seconds, or raise CLOUDFN_MEMORY_BUDGET`,
  },
  CLOUDFN_TOO_MANY_CONNECTIONS: {
    status: 503,
    message: (limit: number) =>
      `the server already has ${limit} open connections (maxConnections); retry after the Retry-After seconds on a new connection, or raise CLOUDFN_MAX_CONNECTIONS`,
  },
  CLOUDFN_BAD_CONFIG: { status: 500, message: (where: string, detail: string) => `${where}: ${detail}` },
  CLOUDFN_OPTIONS: { status: 500, message: (name: string, detail: string) => `option ${name} is invalid: ${detail}` },
} satisfies Record<string, ErrorSpec>;

/** The codes of this table (`RuntimeErrorCode`, in all-errors.ts, is every runtime code). */
export type RequestErrorCode = keyof typeof table;

/**
 * An error the runtime raises on purpose: it carries a stable `code` and the HTTP `status`
 * the client receives. Its message is safe to send to clients (`expose` is true below 500).
 */
export class CloudfnError extends Error {
  override name = 'CloudfnError';
  readonly code: string;
  readonly status: number;
  readonly expose: boolean;
  /** One entry per problem of a refused request (`CLOUDFN_BAD_PARAMS`), sent in the error body. */
  issues?: readonly ParamsIssue[];
  constructor(code: string, status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.status = status;
    this.expose = status < 500;
  }
}

/**
 * The error for `code` of an error table whose messages are written for the reader (the
 * runtime's, the dev server's, the scheduler's), so it is exposed whatever its status: the
 * `build` of `defineErrorTable` for those tables.
 * @example defineErrorTable(table, exposedError)
 */
export function exposedError(code: string, message: string, row: ErrorSpec): CloudfnError {
  const error = new CloudfnError(code, row.status, message);
  (error as { expose: boolean }).expose = true;
  return error;
}

// The runtime's own messages describe the request, never internals, so clients may read them.
const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The rows of this table (all-errors.ts joins them with the other runtime tables). */
export const requestErrors: Readonly<Record<RequestErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` from the runtime table.
 * @example throw createError('CLOUDFN_BODY_TOO_LARGE', 1024, 'maxBodySize')
 */
export const createError: CreateError<typeof table, CloudfnError> = errors.create;

/**
 * Lets a handler answer with a chosen status and a message the client sees.
 * @example throw new HttpError(404, `video ${vid} does not exist`)
 */
export class HttpError extends CloudfnError {
  override name = 'HttpError';
  constructor(status: number, message: string, options?: ErrorOptions & { code?: string }) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new TypeError(`HttpError status must be an integer from 400 to 599, got ${String(status)}`);
    }
    super(options?.code ?? 'CLOUDFN_HTTP_ERROR', status, message, options);
    // A handler chose this message for its client, so it is sent whatever the status.
    (this as { expose: boolean }).expose = true;
  }
}
