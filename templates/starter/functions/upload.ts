import { createHash } from 'node:crypto';
import { HttpError, isUploadFile, type Handler, type MultipartParams } from 'cloudfn';

/** Files up to 5 MiB; larger ones are answered 413 before this code runs. */
export const config = { maxFileSize: 5 * 1024 * 1024 };

/**
 * POST /upload with multipart/form-data: a part named `file` and any text fields.
 * Answers what was received and the file's SHA-256.
 */
const upload: Handler<MultipartParams> = (params, service) => {
  const type = String(service.headers['content-type'] ?? '');
  if (service.httpMethod !== 'POST' || !type.startsWith('multipart/form-data')) {
    throw new HttpError(415, 'send multipart/form-data with a part named "file", e.g. curl -F file=@photo.jpg');
  }
  const file = params.file;
  if (!isUploadFile(file))
    throw new HttpError(400, 'the form has no file part named "file"; add one, e.g. curl -F file=@photo.jpg');
  const fields: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(params)) if (!isUploadFile(value)) fields[key] = value;
  const sha256 = createHash('sha256').update(file.buffer).digest('hex');
  service.log({ uploaded: file.name, size: file.size, type: file.type });
  return { name: file.name, type: file.type, size: file.size, sha256, fields };
};

export default upload;
