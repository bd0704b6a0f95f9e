/**
 * The local object store behind the local TOS: buckets, objects and multipart uploads kept in
 * one folder (under the app's `.cloudfn/`), with no HTTP in it. Every write goes to a temporary
 * file in the store's folder and is renamed into place, so a crash never leaves half an object;
 * bodies stream to disk, hashed on the way (MD5 for the ETag, CRC-64 for
 * `x-tos-hash-crc64ecma`), so a large upload never sits in memory.
 *
 * The layout, under `dir`:
 *   buckets/<bucket>/bucket.json                 { created }
 *   buckets/<bucket>/objects/<sha256(key)>.json  the object's record (its key, size, ETag, headers...)
 *   buckets/<bucket>/objects/<sha256(key)>.<id>  its bytes (the record names the file)
 *   uploads/<uploadId>/upload.json               a multipart upload (bucket, key, headers)
 *   uploads/<uploadId>/<part>.json, <part>.<id>  its parts
 *   tmp/<pid>-<id>/                              files being written by one store of the process <pid>
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Crc64 } from './crc64.js';
import { StorageError, storageError } from './errors.js';

export { StorageError } from './errors.js';
export type { StorageErrorCode } from './errors.js';

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

/** Options of an `ObjectStore`. */
export interface ObjectStoreOptions {
  /** the folder holding the store's data (under the app's .cloudfn/) */
  readonly dir: string;
  /** A bucket that always exists: created on first use and again after `clear()`. @default none */
  readonly defaultBucket?: string;
  /** The least size of a multipart part other than the last, as TOS requires. @default 5 MiB */
  readonly minPartSize?: number;
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

/** The headers a write keeps beside content type and metadata. */
export const STORED_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
] as const;

const DEFAULT_MIN_PART_SIZE = 5 * 1024 * 1024;
const MAX_PART_NUMBER = 10_000;
const MAX_KEYS = 1000;
const MAX_KEY_BYTES = 696;
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const UPLOAD_ID = /^[0-9a-f]{32}$/;

interface ObjectRecord {
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

interface UploadRecord {
  bucket: string;
  key: string;
  initiated: string;
  contentType: string;
  meta: Record<string, string>;
  headers: Record<string, string>;
}

interface PartRecord {
  partNumber: number;
  size: number;
  etag: string;
  md5: string;
  crc64: string;
  lastModified: string;
  data: string;
}

interface Written {
  file: string;
  size: number;
  md5: Buffer;
  crc64: string;
}

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
  #ready: Promise<void> | undefined;

  constructor(options: ObjectStoreOptions) {
    this.dir = options.dir;
    this.defaultBucket = options.defaultBucket;
    this.minPartSize = options.minPartSize ?? DEFAULT_MIN_PART_SIZE;
    this.#tmp = join(this.dir, 'tmp', `${process.pid}-${randomBytes(4).toString('hex')}`);
    if (this.defaultBucket !== undefined) checkBucketName(this.defaultBucket);
  }

  // ---- buckets ----

  async listBuckets(): Promise<{ name: string; created: Date }[]> {
    await this.#open();
    const names = await readdir(join(this.dir, 'buckets')).catch(() => []);
    const buckets: { name: string; created: Date }[] = [];
    for (const name of names.sort()) {
      const record = await readJson<{ created: string }>(this.#bucketFile(name));
      if (record) buckets.push({ name, created: new Date(record.created) });
    }
    return buckets;
  }

  /** Creates a bucket; one that exists is refused (`BucketAlreadyOwnedByYou`) unless it is the default bucket. */
  async createBucket(name: string): Promise<void> {
    checkBucketName(name);
    await this.#open();
    if (await exists(this.#bucketFile(name))) {
      if (name === this.defaultBucket) return;
      throw storageError('BucketAlreadyOwnedByYou', name);
    }
    await this.#createBucket(name);
  }

  /** Whether the bucket exists, without an error. */
  async hasBucket(name: string): Promise<boolean> {
    await this.#open();
    return BUCKET_NAME.test(name) && exists(this.#bucketFile(name));
  }

  /** Deletes an empty bucket (`BucketNotEmpty` otherwise), with the multipart uploads left in it. */
  async deleteBucket(name: string): Promise<void> {
    await this.#bucket(name);
    const entries = await readdir(join(this.#bucketDir(name), 'objects')).catch(() => []);
    if (entries.some((entry) => entry.endsWith('.json'))) throw storageError('BucketNotEmpty', name);
    for (const upload of await this.listMultipartUploads(name))
      await this.abortMultipartUpload(name, upload.key, upload.uploadId);
    // Renamed away first so that the bucket disappears at once, then removed.
    const gone = join(this.#tmp, `bucket-${randomId()}`);
    await rename(this.#bucketDir(name), gone);
    await rm(gone, { recursive: true, force: true });
  }

  // ---- objects ----

  async putObject(bucket: string, key: string, body: Body, head: ObjectHead = {}): Promise<ObjectInfo> {
    checkKey(key);
    await this.#bucket(bucket);
    const written = await this.#write(body);
    await checkMd5(written, head.contentMd5);
    return this.#commit(bucket, key, written, {
      etag: `"${written.md5.toString('hex')}"`,
      crc64: written.crc64,
      contentType: head.contentType || 'application/octet-stream',
      meta: cleanMeta(head.meta),
      headers: cleanHeaders(head.headers),
    });
  }

  async headObject(bucket: string, key: string): Promise<ObjectInfo> {
    await this.#bucket(bucket);
    const record = await readJson<ObjectRecord>(this.#objectFile(bucket, key));
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
    await this.#bucket(bucket);
    // A write may replace the bytes between reading the record and opening them: read again once.
    for (let attempt = 0; ; attempt++) {
      const record = await readJson<ObjectRecord>(this.#objectFile(bucket, key));
      if (!record) throw storageError('NoSuchKey', bucket, key);
      const served = range === undefined ? undefined : resolveRange(range, record.size);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(join(this.#objectsDir(bucket), record.data), 'r');
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
    await this.#bucket(bucket);
    const file = this.#objectFile(bucket, key);
    const record = await readJson<ObjectRecord>(file);
    if (!record) return;
    await rm(file, { force: true });
    await rm(join(this.#objectsDir(bucket), record.data), { force: true });
  }

  /**
   * One page of the bucket's objects in key order (UTF-8 bytes), as `listObjectsType2`: keys under
   * `prefix`; with a `delimiter`, the keys holding it past the prefix rolled up into `commonPrefixes`.
   */
  async listObjects(
    bucket: string,
    query: {
      prefix?: string;
      delimiter?: string;
      maxKeys?: number;
      continuationToken?: string;
      startAfter?: string;
    } = {},
  ): Promise<ListResult> {
    await this.#bucket(bucket);
    const prefix = query.prefix ?? '';
    const delimiter = query.delimiter ?? '';
    const maxKeys = query.maxKeys ?? MAX_KEYS;
    if (!Number.isInteger(maxKeys) || maxKeys < 0 || maxKeys > MAX_KEYS)
      throw storageError('InvalidArgument', 'max-keys', String(maxKeys), `give a whole number from 0 to ${MAX_KEYS}`);
    const resume = query.continuationToken === undefined ? undefined : decodeToken(query.continuationToken);

    const records = await this.#records(bucket);
    const objects: ObjectInfo[] = [];
    const commonPrefixes: string[] = [];
    let last: { key: string; rolled: boolean } | undefined;
    let truncated = false;
    for (const record of records) {
      const key = record.key;
      if (!key.startsWith(prefix)) continue;
      if (query.startAfter !== undefined && compareKeys(key, query.startAfter) <= 0) continue;
      if (resume && (compareKeys(key, resume.key) <= 0 || (resume.rolled && key.startsWith(resume.key)))) continue;
      const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      const rolled = at >= 0 ? key.slice(0, at + delimiter.length) : undefined;
      if (rolled !== undefined && last?.rolled && last.key === rolled) continue;
      if (objects.length + commonPrefixes.length >= maxKeys) {
        truncated = true;
        break;
      }
      if (rolled !== undefined) {
        commonPrefixes.push(rolled);
        last = { key: rolled, rolled: true };
      } else {
        objects.push(toInfo(bucket, record));
        last = { key, rolled: false };
      }
    }
    return {
      objects,
      commonPrefixes,
      truncated,
      ...(truncated && last ? { nextContinuationToken: encodeToken(last) } : {}),
    };
  }

  /** Copies an object; with `head`, the copy gets those headers instead of the source's (TOS's `REPLACE` directive). */
  async copyObject(
    from: { bucket: string; key: string },
    to: { bucket: string; key: string },
    head?: ObjectHead,
  ): Promise<ObjectInfo> {
    checkKey(to.key);
    await this.#bucket(to.bucket);
    const { info, body } = await this.getObject(from.bucket, from.key);
    const written = await this.#write(body);
    return this.#commit(to.bucket, to.key, written, {
      etag: info.etag,
      crc64: written.crc64,
      contentType: head ? head.contentType || 'application/octet-stream' : info.contentType,
      meta: head ? cleanMeta(head.meta) : { ...info.meta },
      headers: head ? cleanHeaders(head.headers) : { ...info.headers },
    });
  }

  // ---- multipart uploads ----

  async createMultipartUpload(bucket: string, key: string, head: ObjectHead = {}): Promise<{ uploadId: string }> {
    checkKey(key);
    await this.#bucket(bucket);
    const uploadId = randomId();
    const record: UploadRecord = {
      bucket,
      key,
      initiated: new Date().toISOString(),
      contentType: head.contentType || 'application/octet-stream',
      meta: cleanMeta(head.meta),
      headers: cleanHeaders(head.headers),
    };
    const dir = this.#uploadDir(uploadId);
    await mkdir(dir, { recursive: true });
    await this.#writeJson(join(dir, 'upload.json'), record);
    return { uploadId };
  }

  /** Streams one part to disk; a part sent again replaces the earlier one. */
  async uploadPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Body,
    contentMd5?: string,
  ): Promise<PartInfo> {
    await this.#upload(bucket, key, uploadId);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > MAX_PART_NUMBER)
      throw storageError(
        'InvalidArgument',
        'partNumber',
        String(partNumber),
        `give a whole number from 1 to ${MAX_PART_NUMBER}`,
      );
    const written = await this.#write(body);
    await checkMd5(written, contentMd5);
    const dir = this.#uploadDir(uploadId);
    const data = `${partNumber}.${randomId()}`;
    await rename(written.file, join(dir, data));
    const record: PartRecord = {
      partNumber,
      size: written.size,
      etag: `"${written.md5.toString('hex')}"`,
      md5: written.md5.toString('hex'),
      crc64: written.crc64,
      lastModified: new Date().toISOString(),
      data,
    };
    const file = join(dir, `${partNumber}.json`);
    const before = await readJson<PartRecord>(file);
    await this.#writeJson(file, record);
    if (before) await rm(join(dir, before.data), { force: true });
    return toPart(record);
  }

  /** The parts uploaded so far, by part number: those after `partNumberMarker`, at most `maxParts`. */
  async listParts(
    bucket: string,
    key: string,
    uploadId: string,
    query: { maxParts?: number; partNumberMarker?: number } = {},
  ): Promise<{ parts: PartInfo[]; truncated: boolean; nextPartNumberMarker?: number }> {
    await this.#upload(bucket, key, uploadId);
    const maxParts = query.maxParts ?? 1000;
    if (!Number.isInteger(maxParts) || maxParts < 0 || maxParts > 1000)
      throw storageError('InvalidArgument', 'max-parts', String(maxParts), 'give a whole number from 0 to 1000');
    const all = (await this.#parts(uploadId)).filter((part) => part.partNumber > (query.partNumberMarker ?? 0));
    const parts = all.slice(0, maxParts).map(toPart);
    const truncated = all.length > parts.length;
    return {
      parts,
      truncated,
      ...(truncated && parts.length > 0 ? { nextPartNumberMarker: parts[parts.length - 1]!.partNumber } : {}),
    };
  }

  /**
   * Joins the listed parts (each with the ETag its upload answered; in any order, joined by number) into the object, or
   * every uploaded part when `parts` is `'all'` (TOS's `x-tos-complete-all`).
   */
  async completeMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[] | 'all',
  ): Promise<ObjectInfo> {
    const upload = await this.#upload(bucket, key, uploadId);
    const uploaded = await this.#parts(uploadId);
    let chosen: PartRecord[];
    if (parts === 'all') {
      chosen = uploaded;
    } else {
      if (parts.length === 0)
        throw storageError('InvalidArgument', 'Parts', '[]', 'list at least one part, as uploadPart answered it');
      // Joined by part number whatever the order listed: the SDK's own uploadFile lists the
      // parts in the order they finished. A number listed twice is refused.
      const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
      for (let i = 1; i < sorted.length; i++)
        if (sorted[i]!.partNumber === sorted[i - 1]!.partNumber)
          throw storageError('InvalidPartOrder', parts.map((part) => part.partNumber).join(', '));
      const byNumber = new Map(uploaded.map((part) => [part.partNumber, part]));
      chosen = sorted.map((listed) => {
        const part = byNumber.get(listed.partNumber);
        if (!part)
          throw storageError('InvalidPart', listed.partNumber, 'it was not uploaded; upload it, or leave it out');
        if (unquote(listed.etag) !== part.md5)
          throw storageError(
            'InvalidPart',
            listed.partNumber,
            `its ETag is ${part.etag}, not ${JSON.stringify(listed.etag)}; give the ETag that uploadPart answered`,
          );
        return part;
      });
    }
    if (chosen.length === 0)
      throw storageError('InvalidArgument', 'x-tos-complete-all', 'yes', 'no part was uploaded; upload a part first');
    for (const part of chosen.slice(0, -1))
      if (part.size < this.minPartSize)
        throw storageError('EntityTooSmall', part.partNumber, part.size, this.minPartSize);

    const dir = this.#uploadDir(uploadId);
    const written = await this.#write(
      Readable.from(
        (async function* () {
          for (const part of chosen) yield* createReadStream(join(dir, part.data));
        })(),
      ),
    );
    const partsMd5 = createHash('md5');
    for (const part of chosen) partsMd5.update(Buffer.from(part.md5, 'hex'));
    const info = await this.#commit(bucket, key, written, {
      etag: `"${partsMd5.digest('hex')}-${chosen.length}"`,
      crc64: written.crc64,
      contentType: upload.contentType,
      meta: upload.meta,
      headers: upload.headers,
    });
    await this.#removeUpload(uploadId);
    return info;
  }

  async abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void> {
    await this.#upload(bucket, key, uploadId);
    await this.#removeUpload(uploadId);
  }

  /** The multipart uploads in progress in a bucket, by key then start. */
  async listMultipartUploads(bucket: string): Promise<UploadInfo[]> {
    await this.#bucket(bucket);
    const uploads: UploadInfo[] = [];
    for (const uploadId of await readdir(join(this.dir, 'uploads')).catch(() => [])) {
      const record = await readJson<UploadRecord>(join(this.#uploadDir(uploadId), 'upload.json'));
      if (record?.bucket === bucket)
        uploads.push({ uploadId, bucket, key: record.key, initiated: new Date(record.initiated) });
    }
    return uploads.sort((a, b) => compareKeys(a.key, b.key) || a.initiated.getTime() - b.initiated.getTime());
  }

  // ---- the whole store ----

  /** Removes every bucket, object and upload (for `db reset` and `--ephemeral`); the default bucket is made again. */
  async clear(): Promise<void> {
    await this.#open();
    for (const folder of ['buckets', 'uploads']) {
      const gone = join(this.#tmp, `${folder}-${randomId()}`);
      await rename(join(this.dir, folder), gone).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
      await rm(gone, { recursive: true, force: true });
    }
    this.#ready = undefined;
    await this.#open();
  }

  // ---- inside ----

  #open(): Promise<void> {
    this.#ready ??= (async () => {
      await mkdir(join(this.dir, 'buckets'), { recursive: true });
      await mkdir(join(this.dir, 'uploads'), { recursive: true });
      // Files left in tmp/ by a process that crashed are never renamed into place: drop them.
      // Another process's folder is left alone while it runs (dev and a `db export` share the store).
      for (const name of await readdir(join(this.dir, 'tmp')).catch(() => [])) {
        const pid = Number(/^(\d+)-/.exec(name)?.[1]);
        if (!pid || !isAlive(pid)) await rm(join(this.dir, 'tmp', name), { recursive: true, force: true });
      }
      await mkdir(this.#tmp, { recursive: true });
      if (this.defaultBucket !== undefined && !(await exists(this.#bucketFile(this.defaultBucket))))
        await this.#createBucket(this.defaultBucket);
    })();
    const ready = this.#ready;
    ready.catch(() => {
      if (this.#ready === ready) this.#ready = undefined;
    });
    return ready;
  }

  async #createBucket(name: string): Promise<void> {
    await mkdir(join(this.#bucketDir(name), 'objects'), { recursive: true });
    await this.#writeJson(this.#bucketFile(name), { created: new Date().toISOString() });
  }

  /** Checks that the bucket exists (`NoSuchBucket`). */
  async #bucket(name: string): Promise<void> {
    await this.#open();
    if (!BUCKET_NAME.test(name) || !(await exists(this.#bucketFile(name)))) throw storageError('NoSuchBucket', name);
  }

  async #upload(bucket: string, key: string, uploadId: string): Promise<UploadRecord> {
    await this.#bucket(bucket);
    const record = UPLOAD_ID.test(uploadId)
      ? await readJson<UploadRecord>(join(this.#uploadDir(uploadId), 'upload.json'))
      : undefined;
    if (!record || record.bucket !== bucket || record.key !== key) throw storageError('NoSuchUpload', uploadId);
    return record;
  }

  async #parts(uploadId: string): Promise<PartRecord[]> {
    const dir = this.#uploadDir(uploadId);
    const parts: PartRecord[] = [];
    for (const name of await readdir(dir).catch(() => [])) {
      if (!/^\d+\.json$/.test(name)) continue;
      const part = await readJson<PartRecord>(join(dir, name));
      if (part) parts.push(part);
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  async #removeUpload(uploadId: string): Promise<void> {
    const gone = join(this.#tmp, `upload-${randomId()}`);
    await rename(this.#uploadDir(uploadId), gone).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    await rm(gone, { recursive: true, force: true });
  }

  /** Every object record of a bucket, in key order. */
  async #records(bucket: string): Promise<ObjectRecord[]> {
    const dir = this.#objectsDir(bucket);
    const records: ObjectRecord[] = [];
    for (const name of await readdir(dir).catch(() => [])) {
      if (!name.endsWith('.json')) continue;
      const record = await readJson<ObjectRecord>(join(dir, name));
      if (record) records.push(record);
    }
    return records.sort((a, b) => compareKeys(a.key, b.key));
  }

  /** Streams a body into a file of tmp/, hashing it on the way, flushed to disk. */
  async #write(body: Body): Promise<Written> {
    await this.#open();
    const file = join(this.#tmp, randomId());
    const md5 = createHash('md5');
    const crc = new Crc64();
    let size = 0;
    const hash = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        crc.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const source =
      typeof body === 'string' || body instanceof Uint8Array
        ? Readable.from([typeof body === 'string' ? Buffer.from(body) : body])
        : body;
    try {
      await pipeline(source, hash, createWriteStream(file));
      // Flushed before it is renamed into place, so that a crash after the rename finds the bytes.
      const handle = await open(file, 'r+');
      await handle.sync().finally(() => handle.close());
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
    return { file, size, md5: md5.digest(), crc64: crc.digest() };
  }

  /** Moves written bytes into place under `key` and writes its record: the record's rename is the commit. */
  async #commit(
    bucket: string,
    key: string,
    written: Written,
    head: Pick<ObjectRecord, 'etag' | 'crc64' | 'contentType' | 'meta' | 'headers'>,
  ): Promise<ObjectInfo> {
    const recordFile = this.#objectFile(bucket, key);
    const data = `${keyId(key)}.${randomId()}`;
    try {
      await rename(written.file, join(this.#objectsDir(bucket), data));
    } catch (error) {
      await rm(written.file, { force: true });
      // The bucket was deleted while the body was written.
      if (isMissing(error)) throw storageError('NoSuchBucket', bucket);
      throw error;
    }
    const before = await readJson<ObjectRecord>(recordFile);
    const record: ObjectRecord = { key, size: written.size, lastModified: new Date().toISOString(), data, ...head };
    await this.#writeJson(recordFile, record);
    if (before && before.data !== data) await rm(join(this.#objectsDir(bucket), before.data), { force: true });
    return toInfo(bucket, record);
  }

  async #writeJson(file: string, value: unknown): Promise<void> {
    const temporary = join(this.#tmp, randomId());
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(JSON.stringify(value));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /** This store's folder of files being written (one per store, so that two never clean up each other's). */
  readonly #tmp: string;
  #bucketDir(bucket: string): string {
    return join(this.dir, 'buckets', bucket);
  }
  #bucketFile(bucket: string): string {
    return join(this.#bucketDir(bucket), 'bucket.json');
  }
  #objectsDir(bucket: string): string {
    return join(this.#bucketDir(bucket), 'objects');
  }
  #objectFile(bucket: string, key: string): string {
    return join(this.#objectsDir(bucket), `${keyId(key)}.json`);
  }
  #uploadDir(uploadId: string): string {
    return join(this.dir, 'uploads', uploadId);
  }
}

/** Refuses (and removes) written bytes whose MD5 is not the one the sender gave. */
async function checkMd5(written: Written, contentMd5: string | undefined): Promise<void> {
  if (contentMd5 === undefined) return;
  const computed = written.md5.toString('base64');
  if (contentMd5.trim() === computed) return;
  await rm(written.file, { force: true });
  throw storageError('BadDigest', contentMd5, computed);
}

function checkBucketName(name: string): void {
  if (!BUCKET_NAME.test(name)) throw storageError('InvalidBucketName', name);
}

function checkKey(key: string): void {
  if (key.length === 0) throw storageError('InvalidObjectName', key, 'give a key of at least one character');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES)
    throw storageError('InvalidObjectName', `${key.slice(0, 40)}...`, `keep it to ${MAX_KEY_BYTES} bytes of UTF-8`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(key))
    throw storageError('InvalidObjectName', key, 'it holds a control character; use printable characters');
  if (key.startsWith('/') || key.startsWith('\\'))
    throw storageError('InvalidObjectName', key, 'it starts with / or \\; drop the leading character');
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

function cleanMeta(meta: Record<string, string> | undefined): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(meta ?? {})) clean[name.toLowerCase()] = String(value);
  return clean;
}

function cleanHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if ((STORED_HEADERS as readonly string[]).includes(lower)) clean[lower] = String(value);
  }
  return clean;
}

function toInfo(bucket: string, record: ObjectRecord): ObjectInfo {
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

function toPart(record: PartRecord): PartInfo {
  return {
    partNumber: record.partNumber,
    size: record.size,
    etag: record.etag,
    crc64: record.crc64,
    lastModified: new Date(record.lastModified),
  };
}

/** Keys sort by their UTF-8 bytes, as TOS lists them. */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function encodeToken(last: { key: string; rolled: boolean }): string {
  return Buffer.from(JSON.stringify([last.key, last.rolled ? 1 : 0])).toString('base64url');
}

function decodeToken(token: string): { key: string; rolled: boolean } {
  try {
    const [key, rolled] = JSON.parse(Buffer.from(token, 'base64url').toString()) as [unknown, unknown];
    if (typeof key === 'string') return { key, rolled: rolled === 1 };
  } catch {
    // refused below
  }
  throw storageError(
    'InvalidArgument',
    'continuation-token',
    JSON.stringify(token),
    'give back the NextContinuationToken of the previous page unchanged',
  );
}

function unquote(etag: string): string {
  return etag.replace(/^"|"$/g, '').toLowerCase();
}

function keyId(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function randomId(): string {
  return randomBytes(16).toString('hex');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Whether `error` is the store's own, to be answered in TOS's shape. */
export function isStorageError(error: unknown): error is StorageError {
  return error instanceof StorageError;
}
