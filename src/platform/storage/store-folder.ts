/**
 * The object store's folder and how it is written: every write goes to a temporary file in the
 * store's folder and is renamed into place, so a crash never leaves half an object; bodies
 * stream to disk, hashed on the way (MD5 for the ETag, CRC-64 for `x-tos-hash-crc64ecma`), so a
 * large upload never sits in memory. Opening the folder drops what a crashed process left.
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
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Crc64 } from './crc64.js';
import { storageError } from './errors.js';
import { BUCKET_NAME, type ObjectRecord, toInfo } from './store-records.js';
import type { Body, ObjectInfo } from './store-types.js';

/** Bytes written to a file of tmp/, with their size and hashes. */
export interface Written {
  file: string;
  size: number;
  md5: Buffer;
  crc64: string;
}

/**
 * The folder of one `ObjectStore`: its paths, its opening, and its atomic writes.
 * @example
 * const folder = new StoreFolder(dir, 'app');
 * await folder.requireBucket('app');
 * const info = await folder.commit('app', 'a.txt', await folder.write('hello'), head);
 */
export class StoreFolder {
  readonly dir: string;
  readonly defaultBucket: string | undefined;
  /** This store's folder of files being written (one per store, so that two never clean up each other's). */
  readonly tmp: string;
  #ready: Promise<void> | undefined;

  constructor(dir: string, defaultBucket: string | undefined) {
    this.dir = dir;
    this.defaultBucket = defaultBucket;
    this.tmp = join(this.dir, 'tmp', `${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  /** Makes the folders and the default bucket, once (again after a failure or `clear()`). */
  open(): Promise<void> {
    this.#ready ??= (async () => {
      await mkdir(join(this.dir, 'buckets'), { recursive: true });
      await mkdir(join(this.dir, 'uploads'), { recursive: true });
      // Files left in tmp/ by a process that crashed are never renamed into place: drop them.
      // Another process's folder is left alone while it runs (dev and a `db export` share the store).
      for (const name of await readdir(join(this.dir, 'tmp')).catch(() => [])) {
        const pid = Number(/^(\d+)-/.exec(name)?.[1]);
        if (!pid || !isAlive(pid)) await rm(join(this.dir, 'tmp', name), { recursive: true, force: true });
      }
      await mkdir(this.tmp, { recursive: true });
      if (this.defaultBucket !== undefined && !(await exists(this.bucketFile(this.defaultBucket))))
        await this.createBucket(this.defaultBucket);
    })();
    const ready = this.#ready;
    ready.catch(() => {
      if (this.#ready === ready) this.#ready = undefined;
    });
    return ready;
  }

  /** Removes every bucket and upload, then opens again (which makes the default bucket). */
  async clear(): Promise<void> {
    await this.open();
    for (const folder of ['buckets', 'uploads']) {
      const gone = join(this.tmp, `${folder}-${randomId()}`);
      await rename(join(this.dir, folder), gone).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
      await rm(gone, { recursive: true, force: true });
    }
    this.#ready = undefined;
    await this.open();
  }

  async createBucket(name: string): Promise<void> {
    await mkdir(join(this.bucketDir(name), 'objects'), { recursive: true });
    await this.writeJson(this.bucketFile(name), { created: new Date().toISOString() });
  }

  /** Checks that the bucket exists (`NoSuchBucket`). */
  async requireBucket(name: string): Promise<void> {
    await this.open();
    if (!BUCKET_NAME.test(name) || !(await exists(this.bucketFile(name)))) throw storageError('NoSuchBucket', name);
  }

  /** Streams a body into a file of tmp/, hashing it on the way, flushed to disk. */
  async write(body: Body): Promise<Written> {
    await this.open();
    const file = join(this.tmp, randomId());
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
  async commit(
    bucket: string,
    key: string,
    written: Written,
    head: Pick<ObjectRecord, 'etag' | 'crc64' | 'contentType' | 'meta' | 'headers'>,
  ): Promise<ObjectInfo> {
    const recordFile = this.objectFile(bucket, key);
    const data = `${keyId(key)}.${randomId()}`;
    try {
      await rename(written.file, join(this.objectsDir(bucket), data));
    } catch (error) {
      await rm(written.file, { force: true });
      // The bucket was deleted while the body was written.
      if (isMissing(error)) throw storageError('NoSuchBucket', bucket);
      throw error;
    }
    const before = await readJson<ObjectRecord>(recordFile);
    const record: ObjectRecord = { key, size: written.size, lastModified: new Date().toISOString(), data, ...head };
    await this.writeJson(recordFile, record);
    if (before && before.data !== data) await rm(join(this.objectsDir(bucket), before.data), { force: true });
    return toInfo(bucket, record);
  }

  /** Writes a JSON file through tmp/: flushed, then renamed into place. */
  async writeJson(file: string, value: unknown): Promise<void> {
    const temporary = join(this.tmp, randomId());
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

  bucketDir(bucket: string): string {
    return join(this.dir, 'buckets', bucket);
  }
  bucketFile(bucket: string): string {
    return join(this.bucketDir(bucket), 'bucket.json');
  }
  objectsDir(bucket: string): string {
    return join(this.bucketDir(bucket), 'objects');
  }
  objectFile(bucket: string, key: string): string {
    return join(this.objectsDir(bucket), `${keyId(key)}.json`);
  }
  uploadDir(uploadId: string): string {
    return join(this.dir, 'uploads', uploadId);
  }
}

/** Refuses (and removes) written bytes whose MD5 is not the one the sender gave. */
export async function checkMd5(written: Written, contentMd5: string | undefined): Promise<void> {
  if (contentMd5 === undefined) return;
  const computed = written.md5.toString('base64');
  if (contentMd5.trim() === computed) return;
  await rm(written.file, { force: true });
  throw storageError('BadDigest', contentMd5, computed);
}

function keyId(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** 32 hex digits: a file name in tmp/, a bytes file's suffix, an upload id. */
export function randomId(): string {
  return randomBytes(16).toString('hex');
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The parsed JSON file, or `undefined` when there is none. */
export async function readJson<T>(file: string): Promise<T | undefined> {
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

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
