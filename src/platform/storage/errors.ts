/**
 * The local TOS's table of error codes. The codes are TOS's own (the `Code` of its JSON error
 * body, which the SDK's `TosServerError` carries as `code`), each with TOS's HTTP status and a
 * message that names the bad value and the fix.
 */
import { defineErrorTable, type CreateError, type ErrorSpec, TableError } from '../../../runtime/error-table.js';

const q = JSON.stringify;

const table = {
  NoSuchBucket: {
    status: 404,
    message: (bucket: string) =>
      `The specified bucket does not exist: ${q(bucket)}; create it (createBucket) or use the bucket in TOS_BUCKET`,
  },
  NoSuchKey: {
    status: 404,
    message: (bucket: string, key: string) =>
      `The specified key does not exist: ${q(key)} in bucket ${q(bucket)}; list the bucket (listObjectsType2) to see its keys`,
  },
  NoSuchUpload: {
    status: 404,
    message: (uploadId: string) =>
      `The specified multipart upload does not exist: upload id ${q(uploadId)} was completed, aborted or never created; start one with createMultipartUpload`,
  },
  InvalidRange: {
    status: 416,
    message: (range: string, size: number) =>
      `The requested range is not satisfiable: ${range} of an object of ${size} bytes; ask for bytes below ${size}`,
  },
  BucketAlreadyOwnedByYou: {
    status: 409,
    message: (bucket: string) => `The bucket ${q(bucket)} already exists and is yours; use it as it is`,
  },
  BucketNotEmpty: {
    status: 409,
    message: (bucket: string) =>
      `The bucket ${q(bucket)} is not empty; delete its objects (deleteMultiObjects) before the bucket`,
  },
  InvalidBucketName: {
    status: 400,
    message: (bucket: string) =>
      `The bucket name ${q(bucket)} is not valid: use 3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit`,
  },
  InvalidObjectName: {
    status: 400,
    message: (key: string, why: string) => `The object key ${q(key)} is not valid: ${why}`,
  },
  InvalidArgument: {
    status: 400,
    message: (name: string, value: string, fix: string) => `${name} ${value} is not valid: ${fix}`,
  },
  InvalidPart: {
    status: 400,
    message: (partNumber: number, why: string) => `Part ${partNumber} cannot be used: ${why}`,
  },
  InvalidPartOrder: {
    status: 400,
    message: (numbers: string) => `A part number is listed twice: ${numbers}; list each part once`,
  },
  EntityTooSmall: {
    status: 400,
    message: (partNumber: number, size: number, min: number) =>
      `Part ${partNumber} has ${size} bytes; every part but the last needs at least ${min} bytes`,
  },
  SignatureDoesNotMatch: {
    status: 403,
    message: (detail: string) =>
      `The request signature we calculated does not match the signature you provided: ${detail}; sign with TOS_ACCESS_KEY and TOS_SECRET_KEY (the dev log shows the string to sign)`,
  },
  AccessDenied: {
    status: 403,
    message: (detail: string) => `Access Denied: ${detail}`,
  },
  InvalidAccessKeyId: {
    status: 403,
    message: (detail: string) => `The access key ID you provided does not exist in our records: ${detail}`,
  },
  RequestTimeTooSkewed: {
    status: 403,
    message: (detail: string) =>
      `The difference between the request time and the server's time is too large: ${detail}`,
  },
  BadDigest: {
    status: 400,
    message: (given: string, computed: string) =>
      `The Content-MD5 you specified did not match what we received: ${given} given, ${computed} computed over the body; send the base64 MD5 of the bytes you send`,
  },
  PreconditionFailed: {
    status: 412,
    message: (header: string, etag: string) =>
      `At least one of the preconditions you specified did not hold: ${header}, while the object's ETag is ${etag}`,
  },
  MethodNotAllowed: {
    status: 405,
    message: (method: string, target: string) =>
      `The specified method is not allowed against this resource: ${method} ${target}`,
  },
  NotImplemented: {
    status: 501,
    message: (operation: string) =>
      `${operation} is not emulated by the local TOS of cloudfn dev; see docs/storage.md for the operations it answers`,
  },
  InternalError: {
    status: 500,
    message: (detail: string) => `We encountered an internal error: ${detail}; the dev log has the details`,
  },
} satisfies Record<string, ErrorSpec>;

/** A code of the local TOS (TOS's own `Code`). */
export type StorageErrorCode = keyof typeof table;

/**
 * An error of the object store, with TOS's code and HTTP status.
 * @example try { await store.headObject('b', 'k') } catch (e) { if (e instanceof StorageError && e.code === 'NoSuchKey') ... }
 */
export class StorageError extends TableError<StorageErrorCode> {
  override readonly name = 'StorageError';
}

const errors = /* @__PURE__ */ defineErrorTable(
  table,
  (code, message, row) => new StorageError(code, row.status, message),
);

/** The local TOS's error table, exported for the documentation test. */
export const storageErrors: Readonly<Record<StorageErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` with the details its message takes.
 * @example throw storageError('NoSuchKey', 'media', 'a.png')
 */
export const storageError: CreateError<typeof table, StorageError> = errors.create;
