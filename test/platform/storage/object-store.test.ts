/**
 * The on-disk object store behind the local TOS: buckets, objects, ranges, listing pages,
 * copies, multipart uploads with TOS's ETags, atomic writes and a store opened again on the
 * same folder (a restart).
 */
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crc64 } from '../../../src/platform/storage/crc64.js';
import { ObjectStore, StorageError } from '../../../src/platform/storage/object-store.js';

let dir: string;
let store: ObjectStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cloudfn-store-'));
  store = new ObjectStore({ dir, defaultBucket: 'app', minPartSize: 1024 });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(StorageError);
    return (error as StorageError).code;
  }
  throw new Error('expected a StorageError');
}

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

describe('ObjectStore', () => {
  it('has the default bucket from the start, and creating it again is no error', async () => {
    expect((await store.listBuckets()).map((bucket) => bucket.name)).toEqual(['app']);
    await store.createBucket('app');
    await store.createBucket('media');
    expect(await codeOf(store.createBucket('media'))).toBe('BucketAlreadyOwnedByYou');
    expect(await codeOf(store.createBucket('Bad_Name'))).toBe('InvalidBucketName');
    expect((await store.listBuckets()).map((bucket) => bucket.name)).toEqual(['app', 'media']);
  });

  it('puts, heads and gets an object with its content type, metadata, ETag and CRC-64', async () => {
    const info = await store.putObject('app', 'docs/a.txt', 'hello world', {
      contentType: 'text/plain',
      meta: { Owner: 'dev' },
      headers: { 'Cache-Control': 'no-cache', 'x-other': 'dropped' },
    });
    expect(info).toMatchObject({ bucket: 'app', key: 'docs/a.txt', size: 11, contentType: 'text/plain' });
    expect(info.etag).toBe(`"${md5('hello world')}"`);
    expect(info.crc64).toBe(crc64(Buffer.from('hello world')));
    expect(info.meta).toEqual({ owner: 'dev' });
    expect(info.headers).toEqual({ 'cache-control': 'no-cache' });
    expect(await store.headObject('app', 'docs/a.txt')).toEqual(info);
    const { body, info: got } = await store.getObject('app', 'docs/a.txt');
    expect(await text(body)).toBe('hello world');
    expect(got.etag).toBe(info.etag);
  });

  it('streams a body given as a stream, and defaults the content type', async () => {
    const data = randomBytes(300_000);
    const info = await store.putObject('app', 'bin', Readable.from([data.subarray(0, 1000), data.subarray(1000)]));
    expect(info.size).toBe(data.length);
    expect(info.contentType).toBe('application/octet-stream');
    expect(info.etag).toBe(`"${md5(data)}"`);
  });

  it('serves ranges: start and end, an open end, a suffix, and refuses one past the end', async () => {
    await store.putObject('app', 'r', '0123456789');
    const read = async (range: Parameters<ObjectStore['getObject']>[2]) => {
      const answer = await store.getObject('app', 'r', range);
      return [await text(answer.body), answer.range];
    };
    expect(await read({ start: 2, end: 4 })).toEqual(['234', { start: 2, end: 4 }]);
    expect(await read({ start: 7 })).toEqual(['789', { start: 7, end: 9 }]);
    expect(await read({ start: 8, end: 100 })).toEqual(['89', { start: 8, end: 9 }]);
    expect(await read({ suffix: 3 })).toEqual(['789', { start: 7, end: 9 }]);
    expect(await codeOf(store.getObject('app', 'r', { start: 10 }))).toBe('InvalidRange');
    expect(await codeOf(store.getObject('app', 'r', { start: 5, end: 2 }))).toBe('InvalidRange');
  });

  it('answers NoSuchKey and NoSuchBucket, and deletes an absent key without an error', async () => {
    expect(await codeOf(store.headObject('app', 'none'))).toBe('NoSuchKey');
    expect(await codeOf(store.getObject('app', 'none'))).toBe('NoSuchKey');
    expect(await codeOf(store.headObject('nobucket', 'k'))).toBe('NoSuchBucket');
    expect(await codeOf(store.putObject('nobucket', 'k', 'x'))).toBe('NoSuchBucket');
    await store.deleteObject('app', 'none');
    await store.putObject('app', 'k', 'x');
    await store.deleteObject('app', 'k');
    expect(await codeOf(store.headObject('app', 'k'))).toBe('NoSuchKey');
  });

  it('refuses keys TOS refuses', async () => {
    expect(await codeOf(store.putObject('app', '', 'x'))).toBe('InvalidObjectName');
    expect(await codeOf(store.putObject('app', '/abs', 'x'))).toBe('InvalidObjectName');
    expect(await codeOf(store.putObject('app', 'a\u0001b', 'x'))).toBe('InvalidObjectName');
    expect(await codeOf(store.putObject('app', 'x'.repeat(697), 'x'))).toBe('InvalidObjectName');
  });

  it('lists by prefix and delimiter, in pages that resume where they stopped', async () => {
    for (const key of ['a/1', 'a/2', 'a/b/3', 'b/4', 'c', 'd/5', 'd/6']) await store.putObject('app', key, key);
    const all = await store.listObjects('app');
    expect(all.objects.map((o) => o.key)).toEqual(['a/1', 'a/2', 'a/b/3', 'b/4', 'c', 'd/5', 'd/6']);
    expect(all.truncated).toBe(false);

    const top = await store.listObjects('app', { delimiter: '/' });
    expect(top.objects.map((o) => o.key)).toEqual(['c']);
    expect(top.commonPrefixes).toEqual(['a/', 'b/', 'd/']);

    const underA = await store.listObjects('app', { prefix: 'a/', delimiter: '/' });
    expect(underA.objects.map((o) => o.key)).toEqual(['a/1', 'a/2']);
    expect(underA.commonPrefixes).toEqual(['a/b/']);

    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await store.listObjects('app', {
        delimiter: '/',
        maxKeys: 2,
        ...(token ? { continuationToken: token } : {}),
      });
      seen.push(...page.commonPrefixes, ...page.objects.map((o) => o.key));
      token = page.nextContinuationToken;
      expect(page.truncated).toBe(token !== undefined);
      pages++;
    } while (token);
    expect(seen.sort()).toEqual(['a/', 'b/', 'c', 'd/']);
    expect(pages).toBe(2);

    expect((await store.listObjects('app', { startAfter: 'b/4' })).objects.map((o) => o.key)).toEqual([
      'c',
      'd/5',
      'd/6',
    ]);
    expect(await codeOf(store.listObjects('app', { maxKeys: 1001 }))).toBe('InvalidArgument');
    expect(await codeOf(store.listObjects('app', { continuationToken: 'garbage' }))).toBe('InvalidArgument');
  });

  it('copies an object with its headers, or with new ones', async () => {
    await store.createBucket('other');
    const source = await store.putObject('app', 'src', 'copy me', { contentType: 'text/plain', meta: { a: '1' } });
    const kept = await store.copyObject({ bucket: 'app', key: 'src' }, { bucket: 'other', key: 'dst' });
    expect(kept).toMatchObject({
      bucket: 'other',
      key: 'dst',
      etag: source.etag,
      contentType: 'text/plain',
      meta: { a: '1' },
    });
    const replaced = await store.copyObject(
      { bucket: 'app', key: 'src' },
      { bucket: 'app', key: 'dst2' },
      { contentType: 'text/csv' },
    );
    expect(replaced).toMatchObject({ contentType: 'text/csv', meta: {} });
    expect(await text((await store.getObject('other', 'dst')).body)).toBe('copy me');
    expect(await codeOf(store.copyObject({ bucket: 'app', key: 'none' }, { bucket: 'app', key: 'x' }))).toBe(
      'NoSuchKey',
    );
  });

  it('joins a multipart upload with the ETag and CRC-64 of the whole', async () => {
    const parts = [randomBytes(2000), randomBytes(1500), randomBytes(10)];
    const { uploadId } = await store.createMultipartUpload('app', 'big.bin', {
      contentType: 'video/mp4',
      meta: { n: '3' },
    });
    const answers = [];
    for (const [index, part] of parts.entries())
      answers.push(await store.uploadPart('app', 'big.bin', uploadId, index + 1, part));
    expect(answers[0]).toMatchObject({
      partNumber: 1,
      size: 2000,
      etag: `"${md5(parts[0]!)}"`,
      crc64: crc64(parts[0]!),
    });

    const listed = await store.listParts('app', 'big.bin', uploadId, { maxParts: 2 });
    expect(listed.parts.map((p) => p.partNumber)).toEqual([1, 2]);
    expect(listed).toMatchObject({ truncated: true, nextPartNumberMarker: 2 });
    expect(
      (await store.listParts('app', 'big.bin', uploadId, { partNumberMarker: 2 })).parts.map((p) => p.partNumber),
    ).toEqual([3]);

    expect(await codeOf(store.completeMultipartUpload('app', 'big.bin', uploadId, [answers[0]!, answers[0]!]))).toBe(
      'InvalidPartOrder',
    );
    expect(
      await codeOf(store.completeMultipartUpload('app', 'big.bin', uploadId, [{ partNumber: 1, etag: '"00"' }])),
    ).toBe('InvalidPart');
    expect(await codeOf(store.completeMultipartUpload('app', 'big.bin', 'f'.repeat(32), answers))).toBe('NoSuchUpload');

    // Listed out of order (the SDK's uploadFile lists parts as they finish): joined by number.
    const info = await store.completeMultipartUpload('app', 'big.bin', uploadId, [...answers].reverse());
    const whole = Buffer.concat(parts);
    const partsMd5 = createHash('md5');
    for (const part of parts) partsMd5.update(createHash('md5').update(part).digest());
    expect(info).toMatchObject({ size: whole.length, contentType: 'video/mp4', meta: { n: '3' } });
    expect(info.etag).toBe(`"${partsMd5.digest('hex')}-3"`);
    expect(info.crc64).toBe(crc64(whole));
    const { body } = await store.getObject('app', 'big.bin');
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(whole)).toBe(true);
    expect(await codeOf(store.listParts('app', 'big.bin', uploadId))).toBe('NoSuchUpload');
  });

  it('refuses a small part before the last, and aborts an upload', async () => {
    const { uploadId } = await store.createMultipartUpload('app', 'k');
    await store.uploadPart('app', 'k', uploadId, 1, randomBytes(10));
    await store.uploadPart('app', 'k', uploadId, 2, randomBytes(10));
    expect(await codeOf(store.completeMultipartUpload('app', 'k', uploadId, 'all'))).toBe('EntityTooSmall');
    expect(await codeOf(store.uploadPart('app', 'k', uploadId, 10_001, 'x'))).toBe('InvalidArgument');
    expect((await store.listMultipartUploads('app')).map((u) => u.uploadId)).toEqual([uploadId]);
    await store.abortMultipartUpload('app', 'k', uploadId);
    expect(await store.listMultipartUploads('app')).toEqual([]);
    expect(await codeOf(store.abortMultipartUpload('app', 'k', uploadId))).toBe('NoSuchUpload');
  });

  it('deletes only an empty bucket', async () => {
    await store.createBucket('tmpb');
    await store.putObject('tmpb', 'k', 'x');
    expect(await codeOf(store.deleteBucket('tmpb'))).toBe('BucketNotEmpty');
    await store.deleteObject('tmpb', 'k');
    await store.deleteBucket('tmpb');
    expect(await store.hasBucket('tmpb')).toBe(false);
    expect(await codeOf(store.deleteBucket('tmpb'))).toBe('NoSuchBucket');
  });

  it('keeps the old object when a write fails half way, and leaves no temporary file', async () => {
    await store.putObject('app', 'k', 'old');
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.putObject('app', 'k', failing)).rejects.toThrow('client went away');
    expect(await text((await store.getObject('app', 'k')).body)).toBe('old');
    const tmp = join(dir, 'tmp');
    expect(readdirSync(tmp).flatMap((sub) => readdirSync(join(tmp, sub)))).toEqual([]);
  });

  it("drops on open what a crashed process left half written, and leaves a live one's alone", async () => {
    await store.putObject('app', 'k', 'kept');
    // The pid of a process that has ended, and this process's own (another store of it).
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const crashed = join(dir, 'tmp', `${dead}-0000`);
    const live = join(dir, 'tmp', `${process.pid}-ffff`);
    for (const folder of [crashed, live]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'half'), 'half an object');
    }
    const again = new ObjectStore({ dir, defaultBucket: 'app' });
    expect(await text((await again.getObject('app', 'k')).body)).toBe('kept');
    expect(existsSync(crashed)).toBe(false);
    expect(existsSync(join(live, 'half'))).toBe(true);
  });

  it('finds its data again when opened anew on the folder (a restart), and clear() empties it', async () => {
    await store.createBucket('media');
    await store.putObject('media', 'kept.txt', 'still here', { meta: { a: 'b' } });
    const again = new ObjectStore({ dir, defaultBucket: 'app' });
    expect((await again.listBuckets()).map((b) => b.name)).toEqual(['app', 'media']);
    expect(await again.headObject('media', 'kept.txt')).toMatchObject({ size: 10, meta: { a: 'b' } });
    await again.clear();
    expect((await again.listBuckets()).map((b) => b.name)).toEqual(['app']);
    expect((await again.listObjects('app')).objects).toEqual([]);
  });
});
