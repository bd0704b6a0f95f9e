/**
 * The shapes the object store answers and accepts: an object's info, a page of a listing, the
 * headers a write may set, a byte range, a multipart upload and its parts, a body. Types only;
 * object-store.ts re-exports them.
 */

/** What the store knows of one object, as TOS answers it. */
export interface ObjectInfo {
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  /** The ETag as TOS sends it, quoted: the MD5 of the bytes, or for a multipart object the MD5 of the parts' MD5s and `-<parts>`. */
  readonly etag: string;
  readonly lastModified: Date;
  readonly contentType: string;
  /** The user metadata (`x-tos-meta-*`), names in lowercase without the prefix. */
  readonly meta: Readonly<Record<string, string>>;
  /** CRC-64/ECMA-182 of the bytes, unsigned decimal (`x-tos-hash-crc64ecma`). */
  readonly crc64: string;
  /** Other stored response headers (`cache-control`, `content-disposition`, `content-encoding`, `content-language`, `expires`), names in lowercase. */
  readonly headers: Readonly<Record<string, string>>;
}

/** One page of `listObjects`. */
export interface ListResult {
  readonly objects: readonly ObjectInfo[];
  readonly commonPrefixes: readonly string[];
  readonly truncated: boolean;
  /** Give it back as `continuationToken` for the next page; set when `truncated`. */
  readonly nextContinuationToken?: string;
}

/** The headers a write may set. */
export interface ObjectHead {
  contentType?: string;
  meta?: Record<string, string>;
  /** `cache-control`, `content-disposition`, `content-encoding`, `content-language`, `expires`. */
  headers?: Record<string, string>;
  /** The base64 MD5 the sender gave (`Content-MD5`): a body that does not match is refused (`BadDigest`) and not stored. */
  contentMd5?: string;
}

/** A byte range: `start` to `end` inclusive (`end` past the object is cut to its last byte), or the last `suffix` bytes. */
export type ByteRange = { start: number; end?: number } | { suffix: number };

/** One uploaded part of a multipart upload. */
export interface PartInfo {
  readonly partNumber: number;
  readonly size: number;
  readonly etag: string;
  readonly crc64: string;
  readonly lastModified: Date;
}

/** A multipart upload in progress. */
export interface UploadInfo {
  readonly uploadId: string;
  readonly bucket: string;
  readonly key: string;
  readonly initiated: Date;
}

/** A body the store accepts. */
export type Body = NodeJS.ReadableStream | Buffer | Uint8Array | string;
