/**
 * The local object store behind the local TOS: buckets, objects and multipart uploads kept in
 * one folder (under the app's `.cloudfn/`), with no HTTP in it. This file owns the store's API
 * and its buckets and objects; beside it, store-folder.ts owns the layout on disk and the atomic
 * writes, store-records.ts the records and the names they may hold, store-listing.ts the pages
 * of `listObjects`, multipart-uploads.ts the multipart uploads, store-types.ts the shapes.
 */
import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { StorageError, storageError } from './errors.js';
import { MultipartUploads } from './multipart-uploads.js';
import { checkMd5, exists, isMissing, randomId, readJson, StoreFolder } from './store-folder.js';
import { type ListQuery, listObjects } from './store-listing.js';
import {
  BUCKET_NAME,
  checkBucketName,
  checkKey,
  cleanHeaders,
  cleanMeta,
  type ObjectRecord,
  toInfo,
} from './store-records.js';
import type { Body, ByteRange, ListResult, ObjectHead, ObjectInfo, PartInfo, UploadInfo } from './store-types.js';

export { StorageError } from './errors.js';
export type { StorageErrorCode } from './errors.js';
export { STORED_HEADERS } from './store-records.js';
export type { Body, ByteRange, ListResult, ObjectHead, ObjectInfo, PartInfo, UploadInfo } from './store-types.js';

/** Options of an `ObjectStore`. */
export interface ObjectStoreOptions {
  /** the folder holding the store's data (under the app's .cloudfn/) */
  readonly dir: string;
  /** A bucket that always exists: created on first use and again after `clear()`. @default none */
  readonly defaultBucket?: string;
  /** The least size of a multipart part other than the last, as TOS requires. @default 5 MiB */
  readonly minPartSize?: number;
}

const DEFAULT_MIN_PART_SIZE = 5 * 1024 * 1024;

/**
 * An object store on disk, in TOS's terms. Safe to share between the requests of one process.
 * @example
 * const store = new ObjectStore({ dir: join(appRoot, '.cloudfn', 'storage'), defaultBucket: 'app' });
 * await store.putObject('app', 'a.txt', 'hello', { contentType: 'text/plain' });
 * const { body } = await store.getObject('app', 'a.txt', { start: 1, end: 3 }); // "ell"
 */
export class ObjectStore {
  readonly dir: string;
  readonly defaultBucket: string | undefined;
  readonly minPartSize: number;
  readonly #folder: StoreFolder;
  readonly #uploads: MultipartUploads;

  constructor(options: ObjectStoreOptions) {
    this.dir = options.dir;
    this.defaultBucket = options.defaultBucket;
    this.minPartSize = options.minPartSize ?? DEFAULT_MIN_PART_SIZE;
    this.#folder = new StoreFolder(this.dir, this.defaultBucket);
    this.#uploads = new MultipartUploads(this.#folder, this.minPartSize);
    if (this.defaultBucket !== undefined) checkBucketName(this.defaultBucket);
  }

  // ---- buckets ----

  async listBuckets(): Promise<{ name: string; created: Date }[]> {
    await this.#folder.open();
    const names = await readdir(join(this.dir, 'buckets')).catch(() => []);
    const buckets: { name: string; created: Date }[] = [];
    for (const name of names.sort()) {
      const record = await readJson<{ created: string }>(this.#folder.bucketFile(name));
      if (record) buckets.push({ name, created: new Date(record.created) });
    }
    return buckets;
  }

  /** Creates a bucket; one that exists is refused (`BucketAlreadyOwnedByYou`) unless it is the default bucket. */
  async createBucket(name: string): Promise<void> {
    checkBucketName(name);
    await this.#folder.open();
    if (await exists(this.#folder.bucketFile(name))) {
      if (name === this.defaultBucket) return;
      throw storageError('BucketAlreadyOwnedByYou', name);
    }
    await this.#folder.createBucket(name);
  }

  /** Whether the bucket exists, without an error. */
  async hasBucket(name: string): Promise<boolean> {
    await this.#folder.open();
    return BUCKET_NAME.test(name) && exists(this.#folder.bucketFile(name));
  }

  /** Deletes an empty bucket (`BucketNotEmpty` otherwise), with the multipart uploads left in it. */
  async deleteBucket(name: string): Promise<void> {
    await this.#folder.requireBucket(name);
    const entries = await readdir(join(this.#folder.bucketDir(name), 'objects')).catch(() => []);
    if (entries.some((entry) => entry.endsWith('.json'))) throw storageError('BucketNotEmpty', name);
    for (const upload of await this.listMultipartUploads(name))
      await this.abortMultipartUpload(name, upload.key, upload.uploadId);
    // Renamed away first so that the bucket disappears at once, then removed.
    const gone = join(this.#folder.tmp, `bucket-${randomId()}`);
    await rename(this.#folder.bucketDir(name), gone);
    await rm(gone, { recursive: true, force: true });
  }

  // ---- objects ----

  async putObject(bucket: string, key: string, body: Body, head: ObjectHead = {}): Promise<ObjectInfo> {
    checkKey(key);
    await this.#folder.requireBucket(bucket);
    const written = await this.#folder.write(body);
    await checkMd5(written, head.contentMd5);
    return this.#folder.commit(bucket, key, written, {
      etag: `"${written.md5.toString('hex')}"`,
      crc64: written.crc64,
      contentType: head.contentType || 'application/octet-stream',
      meta: cleanMeta(head.meta),
      headers: cleanHeaders(head.headers),
    });
  }

  async headObject(bucket: string, key: string): Promise<ObjectInfo> {
    await this.#folder.requireBucket(bucket);
    const record = await readJson<ObjectRecord>(this.#folder.objectFile(bucket, key));
    if (!record) throw storageError('NoSuchKey', bucket, key);
    return toInfo(bucket, record);
  }

  /**
   * The object's bytes, or a range of them (`range` in the answer is the range served, end inclusive).
   * A range that starts past the end is refused with `InvalidRange`.
   */
  async getObject(
    bucket: string,
    key: string,
    range?: ByteRange,
  ): Promise<{ info: ObjectInfo; body: NodeJS.ReadableStream; range?: { start: number; end: number } }> {
    await this.#folder.requireBucket(bucket);
    // A write may replace the bytes between reading the record and opening them: read again once.
    for (let attempt = 0; ; attempt++) {
      const record = await readJson<ObjectRecord>(this.#folder.objectFile(bucket, key));
      if (!record) throw storageError('NoSuchKey', bucket, key);
      const served = range === undefined ? undefined : resolveRange(range, record.size);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(join(this.#folder.objectsDir(bucket), record.data), 'r');
      } catch (error) {
        if (isMissing(error) && attempt === 0) continue;
        throw error;
      }
      let body: NodeJS.ReadableStream;
      if (record.size === 0) {
        await handle.close();
        body = Readable.from([]);
      } else {
        body = handle.createReadStream({ start: served?.start ?? 0, end: served?.end ?? record.size - 1 });
      }
      return { info: toInfo(bucket, record), body, ...(served ? { range: served } : {}) };
    }
  }

  /** Deletes an object; an absent one is no error, as on TOS. */
  async deleteObject(bucket: string, key: string): Promise<void> {
    await this.#folder.requireBucket(bucket);
    const file = this.#folder.objectFile(bucket, key);
    const record = await readJson<ObjectRecord>(file);
    if (!record) return;
    await rm(file, { force: true });
    await rm(join(this.#folder.objectsDir(bucket), record.data), { force: true });
  }

  /**
   * One page of the bucket's objects in key order (UTF-8 bytes), as `listObjectsType2`: keys under
   * `prefix`; with a `delimiter`, the keys holding it past the prefix rolled up into `commonPrefixes`.
   */
  listObjects(bucket: string, query: ListQuery = {}): Promise<ListResult> {
    return listObjects(this.#folder, bucket, query);
  }

  /** Copies an object; with `head`, the copy gets those headers instead of the source's (TOS's `REPLACE` directive). */
  async copyObject(
    from: { bucket: string; key: string },
    to: { bucket: string; key: string },
    head?: ObjectHead,
  ): Promise<ObjectInfo> {
    checkKey(to.key);
    await this.#folder.requireBucket(to.bucket);
    const { info, body } = await this.getObject(from.bucket, from.key);
    const written = await this.#folder.write(body);
    return this.#folder.commit(to.bucket, to.key, written, {
      etag: info.etag,
      crc64: written.crc64,
      contentType: head ? head.contentType || 'application/octet-stream' : info.contentType,
      meta: head ? cleanMeta(head.meta) : { ...info.meta },
      headers: head ? cleanHeaders(head.headers) : { ...info.headers },
    });
  }

  // ---- multipart uploads (multipart-uploads.ts) ----

  /** Starts a multipart upload; the object will get `head`'s headers. */
  createMultipartUpload(bucket: string, key: string, head: ObjectHead = {}): Promise<{ uploadId: string }> {
    return this.#uploads.createMultipartUpload(bucket, key, head);
  }

  /** Streams one part to disk; a part sent again replaces the earlier one. */
  uploadPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Body,
    contentMd5?: string,
  ): Promise<PartInfo> {
    return this.#uploads.uploadPart(bucket, key, uploadId, partNumber, body, contentMd5);
  }

  /** The parts uploaded so far, by part number: those after `partNumberMarker`, at most `maxParts`. */
  listParts(
    bucket: string,
    key: string,
    uploadId: string,
    query: { maxParts?: number; partNumberMarker?: number } = {},
  ): Promise<{ parts: PartInfo[]; truncated: boolean; nextPartNumberMarker?: number }> {
    return this.#uploads.listParts(bucket, key, uploadId, query);
  }

  /**
   * Joins the listed parts (each with the ETag its upload answered; in any order, joined by number) into the object, or
   * every uploaded part when `parts` is `'all'` (TOS's `x-tos-complete-all`).
   */
  completeMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[] | 'all',
  ): Promise<ObjectInfo> {
    return this.#uploads.completeMultipartUpload(bucket, key, uploadId, parts);
  }

  /** Drops an upload and its parts. */
  abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void> {
    return this.#uploads.abortMultipartUpload(bucket, key, uploadId);
  }

  /** The multipart uploads in progress in a bucket, by key then start. */
  listMultipartUploads(bucket: string): Promise<UploadInfo[]> {
    return this.#uploads.listMultipartUploads(bucket);
  }

  // ---- the whole store ----

  /** Removes every bucket, object and upload (for `db reset` and `--ephemeral`); the default bucket is made again. */
  clear(): Promise<void> {
    return this.#folder.clear();
  }
}

function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  if ('suffix' in range) {
    if (!Number.isInteger(range.suffix) || range.suffix < 0)
      throw storageError('InvalidRange', `bytes=-${range.suffix}`, size);
    if (size === 0) throw storageError('InvalidRange', `bytes=-${range.suffix}`, size);
    return { start: Math.max(0, size - range.suffix), end: size - 1 };
  }
  const text = `bytes=${range.start}-${range.end ?? ''}`;
  if (!Number.isInteger(range.start) || range.start < 0 || range.start >= size)
    throw storageError('InvalidRange', text, size);
  if (range.end !== undefined && (!Number.isInteger(range.end) || range.end < range.start))
    throw storageError('InvalidRange', text, size);
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
}

/** Whether `error` is the store's own, to be answered in TOS's shape. */
export function isStorageError(error: unknown): error is StorageError {
  return error instanceof StorageError;
}
