/**
 * `isUploadFile`: tells a file part of a multipart body from its text fields, so a handler
 * typed `Handler<MultipartParams>` can narrow `params.file` without copying a guard of its own.
 */
import type { UploadFile } from '../types.js';

/**
 * True when `value` is a file part of a multipart body (`{ name, type, size, buffer }`), false
 * for a text field (a string or an array of strings) and anything else.
 * @example
 * import { isUploadFile, type Handler, type MultipartParams } from 'cloudfn';
 * const upload: Handler<MultipartParams> = (params) => {
 *   if (!isUploadFile(params.file)) throw new HttpError(400, 'send a part named "file"');
 *   return { name: params.file.name, size: params.file.size };
 * };
 */
export function isUploadFile(value: unknown): value is UploadFile {
  if (typeof value !== 'object' || value === null) return false;
  const file = value as Partial<UploadFile>;
  return (
    Buffer.isBuffer(file.buffer) &&
    typeof file.name === 'string' &&
    typeof file.type === 'string' &&
    typeof file.size === 'number'
  );
}
