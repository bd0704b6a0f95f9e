/**
 * The object store's multipart uploads: an upload's record and its parts on disk (under
 * `uploads/<uploadId>/`), each part streamed and hashed as an object is, and the join of the
 * listed parts into one object, whose ETag is the MD5 of the parts' MD5s and `-<parts>`.
 * `ObjectStore` delegates its multipart methods here; they are documented there.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { storageError } from './errors.js';
import { checkMd5, isMissing, randomId, readJson, type StoreFolder } from './store-folder.js';
import { compareKeys } from './store-listing.js';
import { checkKey, cleanHeaders, cleanMeta, type PartRecord, toPart, type UploadRecord } from './store-records.js';
import type { Body, ObjectHead, ObjectInfo, PartInfo, UploadInfo } from './store-types.js';

const MAX_PART_NUMBER = 10_000;
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/**
 * The multipart uploads of one store's folder.
 * @example
 * const uploads = new MultipartUploads(folder, 5 * 1024 * 1024);
 * const { uploadId } = await uploads.createMultipartUpload('app', 'big.bin');
 */
export class MultipartUploads {
  readonly #folder: StoreFolder;
  readonly #minPartSize: number;

  constructor(folder: StoreFolder, minPartSize: number) {
    this.#folder = folder;
    this.#minPartSize = minPartSize;
  }

  async createMultipartUpload(bucket: string, key: string, head: ObjectHead = {}): Promise<{ uploadId: string }> {
    checkKey(key);
    await this.#folder.requireBucket(bucket);
    const uploadId = randomId();
    const record: UploadRecord = {
      bucket,
      key,
      initiated: new Date().toISOString(),
      contentType: head.contentType || 'application/octet-stream',
      meta: cleanMeta(head.meta),
      headers: cleanHeaders(head.headers),
    };
    const dir = this.#folder.uploadDir(uploadId);
    await mkdir(dir, { recursive: true });
    await this.#folder.writeJson(join(dir, 'upload.json'), record);
    return { uploadId };
  }

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
    const written = await this.#folder.write(body);
    await checkMd5(written, contentMd5);
    const dir = this.#folder.uploadDir(uploadId);
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
    await this.#folder.writeJson(file, record);
    if (before) await rm(join(dir, before.data), { force: true });
    return toPart(record);
  }

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
      if (part.size < this.#minPartSize)
        throw storageError('EntityTooSmall', part.partNumber, part.size, this.#minPartSize);

    const dir = this.#folder.uploadDir(uploadId);
    const written = await this.#folder.write(
      Readable.from(
        (async function* () {
          for (const part of chosen) yield* createReadStream(join(dir, part.data));
        })(),
      ),
    );
    const partsMd5 = createHash('md5');
    for (const part of chosen) partsMd5.update(Buffer.from(part.md5, 'hex'));
    const info = await this.#folder.commit(bucket, key, written, {
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

  async listMultipartUploads(bucket: string): Promise<UploadInfo[]> {
    await this.#folder.requireBucket(bucket);
    const uploads: UploadInfo[] = [];
    for (const uploadId of await readdir(join(this.#folder.dir, 'uploads')).catch(() => [])) {
      const record = await readJson<UploadRecord>(join(this.#folder.uploadDir(uploadId), 'upload.json'));
      if (record?.bucket === bucket)
        uploads.push({ uploadId, bucket, key: record.key, initiated: new Date(record.initiated) });
    }
    return uploads.sort((a, b) => compareKeys(a.key, b.key) || a.initiated.getTime() - b.initiated.getTime());
  }

  /** The upload's record, checking that it is of this bucket and key (`NoSuchUpload`). */
  async #upload(bucket: string, key: string, uploadId: string): Promise<UploadRecord> {
    await this.#folder.requireBucket(bucket);
    const record = UPLOAD_ID.test(uploadId)
      ? await readJson<UploadRecord>(join(this.#folder.uploadDir(uploadId), 'upload.json'))
      : undefined;
    if (!record || record.bucket !== bucket || record.key !== key) throw storageError('NoSuchUpload', uploadId);
    return record;
  }

  async #parts(uploadId: string): Promise<PartRecord[]> {
    const dir = this.#folder.uploadDir(uploadId);
    const parts: PartRecord[] = [];
    for (const name of await readdir(dir).catch(() => [])) {
      if (!/^\d+\.json$/.test(name)) continue;
      const part = await readJson<PartRecord>(join(dir, name));
      if (part) parts.push(part);
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  async #removeUpload(uploadId: string): Promise<void> {
    const gone = join(this.#folder.tmp, `upload-${randomId()}`);
    await rename(this.#folder.uploadDir(uploadId), gone).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    await rm(gone, { recursive: true, force: true });
  }
}

function unquote(etag: string): string {
  return etag.replace(/^"|"$/g, '').toLowerCase();
}
