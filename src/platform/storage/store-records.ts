/**
 * The records the object store keeps beside the bytes (an object's, a multipart upload's, a
 * part's JSON), how a record becomes the info the store answers, and what a record may hold:
 * the bucket names and keys TOS accepts, the user metadata and the stored headers, cleaned.
 */
import { storageError } from './errors.js';
import type { ObjectInfo, PartInfo } from './store-types.js';

/** The headers a write keeps beside content type and metadata. */
export const STORED_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
] as const;

/** A bucket name TOS accepts: 3 to 63 lowercase letters, digits and hyphens, no hyphen at either end. */
export const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const MAX_KEY_BYTES = 696;

/** An object's record, `objects/<sha256(key)>.json` in its bucket's folder. */
export interface ObjectRecord {
  key: string;
  size: number;
  etag: string;
  lastModified: string;
  contentType: string;
  meta: Record<string, string>;
  headers: Record<string, string>;
  crc64: string;
  /** The file of the bytes, in the bucket's objects folder. */
  data: string;
}

/** A multipart upload's record, `uploads/<uploadId>/upload.json`: the headers the object will get. */
export interface UploadRecord {
  bucket: string;
  key: string;
  initiated: string;
  contentType: string;
  meta: Record<string, string>;
  headers: Record<string, string>;
}

/** A part's record, `uploads/<uploadId>/<part>.json`. */
export interface PartRecord {
  partNumber: number;
  size: number;
  etag: string;
  md5: string;
  crc64: string;
  lastModified: string;
  data: string;
}

/** Refuses a bucket name TOS refuses (`InvalidBucketName`). */
export function checkBucketName(name: string): void {
  if (!BUCKET_NAME.test(name)) throw storageError('InvalidBucketName', name);
}

/** Refuses a key TOS refuses (`InvalidObjectName`), saying why. */
export function checkKey(key: string): void {
  if (key.length === 0) throw storageError('InvalidObjectName', key, 'give a key of at least one character');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES)
    throw storageError('InvalidObjectName', `${key.slice(0, 40)}...`, `keep it to ${MAX_KEY_BYTES} bytes of UTF-8`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(key))
    throw storageError('InvalidObjectName', key, 'it holds a control character; use printable characters');
  if (key.startsWith('/') || key.startsWith('\\'))
    throw storageError('InvalidObjectName', key, 'it starts with / or \\; drop the leading character');
}

/** The user metadata as stored: names in lowercase, values as strings. */
export function cleanMeta(meta: Record<string, string> | undefined): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(meta ?? {})) clean[name.toLowerCase()] = String(value);
  return clean;
}

/** The `STORED_HEADERS` among `headers`, names in lowercase; the others are dropped. */
export function cleanHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if ((STORED_HEADERS as readonly string[]).includes(lower)) clean[lower] = String(value);
  }
  return clean;
}

/** The info of an object record, as the store answers it. */
export function toInfo(bucket: string, record: ObjectRecord): ObjectInfo {
  return {
    bucket,
    key: record.key,
    size: record.size,
    etag: record.etag,
    lastModified: new Date(record.lastModified),
    contentType: record.contentType,
    meta: record.meta,
    crc64: record.crc64,
    headers: record.headers ?? {},
  };
}

/** The info of a part record, as the store answers it. */
export function toPart(record: PartRecord): PartInfo {
  return {
    partNumber: record.partNumber,
    size: record.size,
    etag: record.etag,
    crc64: record.crc64,
    lastModified: new Date(record.lastModified),
  };
}
