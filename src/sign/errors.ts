/**
 * The signing scheme's table of error codes (platform contract, Signing): one row per code with
 * the HTTP status a verifier answers and a message that names the bad value and the fix.
 * `test/errors-doc.test.ts` checks that every code has a `### CODE` heading in docs/errors.md.
 */
import { defineErrorTable, type CreateError, type ErrorSpec, TableError } from '../../runtime/errors.js';

const FIELDS = 'appid, nonce_str, timestamp, key_version, signature';

const table = {
  SIGN_NO_AUTHORIZATION: {
    status: 401,
    message: (header: string) =>
      `the request carries no ${header} header; sign it (cloudfn sign, or signRequest) and send the header`,
  },
  SIGN_BAD_AUTH_TYPE: {
    status: 401,
    message: (found: string) =>
      `the authorization type is ${JSON.stringify(found)}; the scheme's only type is SHA256-RSA2048`,
  },
  SIGN_MALFORMED_AUTHORIZATION: {
    status: 401,
    message: (detail: string) =>
      `the authorization header is malformed: ${detail}; write SHA256-RSA2048 ${FIELDS.split(', ')
        .map((f) => `${f}="..."`)
        .join(',')}`,
  },
  SIGN_MISSING_FIELD: {
    status: 401,
    message: (field: string, how: string) =>
      `the authorization header ${how} field ${field}; it needs all five: ${FIELDS}`,
  },
  SIGN_MISSING_HEADER: {
    status: 401,
    message: (header: string) =>
      `the ${header} header is missing or empty; the platform signs with three headers (timestamp, nonce, signature)`,
  },
  SIGN_BAD_TIMESTAMP: {
    status: 401,
    message: (value: string) =>
      `timestamp must be whole seconds since 1970 in decimal digits, got ${JSON.stringify(value)}; send Math.floor(Date.now() / 1000)`,
  },
  SIGN_STALE_TIMESTAMP: {
    status: 401,
    message: (age: number, max: number) =>
      `the timestamp is ${age} s old, more than the ${max} s allowed; sign again just before sending and check the clock (NTP)`,
  },
  SIGN_FUTURE_TIMESTAMP: {
    status: 401,
    message: (value: string, ahead: number, max: number) =>
      value.length > 12
        ? `the timestamp ${value} is ${ahead} s in the future because it has ${value.length} digits: send seconds, not milliseconds (Math.floor(Date.now() / 1000))`
        : `the timestamp is ${ahead} s in the future, more than the ${max} s of clock skew allowed; check the signer's clock (NTP) or that it is in seconds, not milliseconds`,
  },
  SIGN_BAD_NONCE: {
    status: 401,
    message: (value: string) =>
      `nonce_str must be 1 to 128 printable ASCII characters without blanks, quotes, backslashes or commas, got ${JSON.stringify(value)}`,
  },
  SIGN_UNKNOWN_KEY_VERSION: {
    status: 401,
    message: (appid: string, version: string) =>
      `no app public key with key_version ${JSON.stringify(version)} is known for appid ${appid}; upload the public key of this private key, or send the key_version shown on the key settings page`,
  },
  SIGN_UNKNOWN_APPID: {
    status: 401,
    message: (appid: string, detail: string) =>
      `no platform public key is known for appid ${JSON.stringify(appid)}: ${detail}; copy the key from the console's key settings of this mini-program into the key store (<dir>/${appid}.pem, or what load returns)`,
  },
  SIGN_NO_APPID: {
    status: 401,
    message: (detail: string) =>
      `the appid to pick the platform key by is unknown: ${detail}; pass appid, or send a body with a top-level app_id`,
  },
  SIGN_APPID_MISMATCH: {
    status: 401,
    message: (expected: string, found: string) =>
      `the body names app_id ${JSON.stringify(found)} but appid ${JSON.stringify(expected)} was expected; a notification for one mini-program was sent to (or verified for) another`,
  },
  SIGN_REPLAY: {
    status: 401,
    message: (nonce: string) =>
      `nonce_str ${JSON.stringify(nonce)} was already used inside the time window: this is a replay; make a new nonce for every request (signRequest does)`,
  },
  SIGN_BAD_SIGNATURE: {
    status: 401,
    message: (detail: string) =>
      `the signature does not verify: ${detail}; run cloudfn doctor to find which part differs`,
  },
  SIGN_UNSIGNED_RESPONSE: {
    status: 502,
    message: (status: number, header: string) =>
      `the ${status} response carries no ${header} header; a 2xx answer without a signature is forged or was changed on the way, so it is refused`,
  },
  SIGN_BAD_KEY: {
    status: 400,
    message: (detail: string) => `the key cannot be read: ${detail}`,
  },
  SIGN_KEY_TYPE: {
    status: 400,
    message: (found: string) =>
      `got ${found}; the scheme needs an RSA key (SHA256-RSA2048): openssl genrsa -out app_private_key.pem 2048`,
  },
  SIGN_KEY_SIZE: {
    status: 400,
    message: (bits: number) =>
      `got a ${bits}-bit RSA key; the scheme needs 2048 bits: openssl genrsa -out app_private_key.pem 2048`,
  },
} satisfies Record<string, ErrorSpec>;

/** A code of the signing table. */
export type SignErrorCode = keyof typeof table;

/**
 * A signature, header, timestamp, replay or key failure. `code` is stable (see docs/errors.md),
 * `status` is what a verifier answers (401 for requests and callbacks), and the message names
 * the bad value and the fix.
 * @example
 * try { await verifyRequest(options) } catch (e) { if (e instanceof SignatureError) res.statusCode = e.status }
 */
export class SignatureError extends TableError<SignErrorCode> {
  override name = 'SignatureError';
  readonly expose = true;
  constructor(code: SignErrorCode, message: string, options?: ErrorOptions) {
    super(code, table[code].status, message, options);
  }
}

const errors = /* @__PURE__ */ defineErrorTable(table, (code, message) => new SignatureError(code, message));

/**
 * The signing error table (code → status and message), exported for the documentation test.
 * @example signErrors.SIGN_REPLAY.status // 401
 */
export const signErrors: Readonly<Record<SignErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` from the table.
 * @example throw signError('SIGN_KEY_SIZE', 1024)
 */
export const signError: CreateError<typeof table, SignatureError> = errors.create;
