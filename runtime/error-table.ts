/**
 * The shared tail of every error table (runtime, sign, media, platform, dev, client, fleet,
 * schedule): the row type, the details a row's message takes, the message of a code, and
 * `defineErrorTable`, which turns a table into its exported rows and its `create` function.
 * Each area keeps its own rows and its own error class; this file owns what they share.
 */

/** One row of an error table. `message` receives the call site's details. */
export interface ErrorSpec {
  readonly status: number;
  readonly message: (...details: never[]) => string;
}

/** The details the message of `code` in `table` takes, e.g. `[limit: number, name: string]`. */
export type ErrorDetails<T extends Record<string, ErrorSpec>, C extends keyof T> = T[C] extends {
  message: (...details: infer D) => string;
}
  ? D
  : never;

/**
 * The message of `code` in an error table: every table builds its messages here.
 * @example errorMessage(runtimeErrors, 'CLOUDFN_BODY_TOO_LARGE', [1024, 'maxBodySize'])
 */
export function errorMessage<T extends Record<string, ErrorSpec>, C extends keyof T>(
  table: T,
  code: C,
  details: ErrorDetails<T, C>,
): string {
  // Each row's message takes its own details; the table type only knows `never[]`.
  return (table[code]!.message as unknown as (...args: ErrorDetails<T, C>) => string)(...details);
}

/** The builder of an area's errors: `code` and the details its message takes. */
export type CreateError<T extends Record<string, ErrorSpec>, E> = <C extends keyof T & string>(
  code: C,
  ...details: ErrorDetails<T, C>
) => E;

/** What `defineErrorTable` gives an area: its rows, and the builder of its errors. */
export interface ErrorTable<T extends Record<string, ErrorSpec>, E> {
  /** The rows (code → status and message), exported for the documentation test. */
  readonly rows: Readonly<{ [C in keyof T]: T[C] }>;
  /** The message of `code` with `details`. */
  message<C extends keyof T & string>(code: C, details: ErrorDetails<T, C>): string;
  /** The area's error for `code`, built by the area's own class. */
  readonly create: CreateError<T, E>;
}

/**
 * One area's error table: `build` makes the area's error from the code, its row and the
 * formatted message; everything else (lookup, formatting) is shared.
 * @example
 * const errors = defineErrorTable(table, (code, message) => new SignatureError(code, message));
 * export const signError = errors.create;
 */
export function defineErrorTable<T extends Record<string, ErrorSpec>, E>(
  table: T,
  build: (code: keyof T & string, message: string, row: T[keyof T]) => E,
): ErrorTable<T, E> {
  return {
    rows: table,
    message: (code, details) => errorMessage(table, code, details),
    create: (code, ...details) => build(code, errorMessage(table, code, details), table[code]),
  };
}

/**
 * The base of the areas' errors that carry a table code and an HTTP status (the signing
 * scheme's, the media client's, the emulator's); `CloudfnError` keeps its own.
 * @example class SignatureError extends TableError<SignErrorCode> {}
 */
export class TableError<C extends string = string> extends Error {
  readonly code: C;
  readonly status: number;
  constructor(code: C, status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.status = status;
  }
}
