/**
 * The local TOS driven by the platform's own SDK (@volcengine/tos-sdk): every operation of
 * issue 54 against the store over a real socket, the SDK's `https://` requests to
 * `<bucket>.tos-cn-beijing.volces.com` routed by the intranet hook, its signatures (header and
 * presigned) checked by the local verifier, and its `TosServerError` codes for a wrong secret,
 * a wrong access key, a header changed after signing and an expired URL.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { TosClient, TosServerError } from '@volcengine/tos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyHost } from '../../../runtime/intranet/hosts.js';
import { interceptIntranet } from '../../../runtime/intranet/intercept.js';
import { crc64 } from '../../../src/platform/storage/crc64.js';
import { ObjectStore } from '../../../src/platform/storage/object-store.js';
import { tosHandler } from '../../../src/platform/storage/tos-http.js';

const KEYS = { accessKey: 'AKLTtest', secretKey: 'test-secret' };
const BUCKET = 'media';
let dir: string;
let server: Server;
let off: () => void;
const warnings: string[] = [];

function client(overrides: Record<string, unknown> = {}): TosClient {
  return new TosClient({
    accessKeyId: KEYS.accessKey,
    accessKeySecret: KEYS.secretKey,
    region: 'cn-beijing',
    endpoint: 'tos-cn-beijing.volces.com',
    bucket: BUCKET,
    // The SDK computes its CRC only over stream bodies (a Buffer's counts as 0 and fails the
    // check against any server): on for the stream tests below, off here as it is by default.
    enableCRC: false,
    maxRetryCount: 0,
    ...overrides,
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudfn-tos-'));
  const store = new ObjectStore({ dir, defaultBucket: BUCKET });
  const handle = tosHandler({ store, keys: KEYS, region: 'cn-beijing', warn: (m) => warnings.push(m) });
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    const at = url.indexOf('?');
    handle(req, res, {
      host: String(req.headers.host),
      path: at === -1 ? url : url.slice(0, at),
      query: at === -1 ? '' : url.slice(at + 1),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  off = await interceptIntranet(({ hostname }) =>
    classifyHost(hostname)?.kind === 'tos' ? { host: '127.0.0.1', port } : undefined,
  );
});

afterAll(async () => {
  off();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function serverError(promise: Promise<unknown>): Promise<TosServerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TosServerError) return error;
    throw error;
  }
  throw new Error('expected a TosServerError');
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

describe('the local TOS under the real SDK', () => {
  // Made once the hook is on: the SDK's agent copies createConnection when the client is made.
  let tos: TosClient;
  beforeAll(() => {
    tos = client();
  });

  it('puts, heads, gets (whole and a Range) and deletes an object with its metadata, ETag and CRC-64', async () => {
    const body = Buffer.from('hello from the local TOS');
    const put = await tos.putObject({ key: 'docs/hello.txt', body, meta: { owner: 'dev' }, cacheControl: 'no-cache' });
    expect(put.statusCode).toBe(200);
    expect(put.headers.etag).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
    expect(put.headers['x-tos-hash-crc64ecma']).toBe(crc64(body));

    const head = await tos.headObject({ key: 'docs/hello.txt' });
    expect(head.data['content-length']).toBe(String(body.length));
    expect(head.data['content-type']).toBe('text/plain');
    expect(head.data['x-tos-meta-owner']).toBe('dev');
    expect(head.data['cache-control']).toBe('no-cache');

    const whole = await tos.getObjectV2({ key: 'docs/hello.txt' });
    expect((await readAll(whole.data.content)).equals(body)).toBe(true);
    const part = await tos.getObjectV2({ key: 'docs/hello.txt', range: 'bytes=6-9' });
    expect(part.statusCode).toBe(206);
    expect((await readAll(part.data.content)).toString()).toBe('from');
    expect(part.headers['content-range']).toBe(`bytes 6-9/${body.length}`);

    await tos.deleteObject({ key: 'docs/hello.txt' });
    // getObjectV2 reads its answer as a stream, so the SDK leaves `code` undefined for any
    // server (it parses no error body there): the status and TOS's x-tos-ec header tell.
    const gone = await serverError(tos.getObjectV2({ key: 'docs/hello.txt' }));
    expect([gone.statusCode, gone.ec]).toEqual([404, 'NoSuchKey']);
    // Deleting an absent key is no error, as on TOS.
    expect((await tos.deleteObject({ key: 'docs/hello.txt' })).statusCode).toBe(204);
  });

  it('lists with prefix, delimiter, max keys and a continuation token', async () => {
    for (const key of ['l/a/1', 'l/a/2', 'l/b', 'l/c', 'l/d/3']) await tos.putObject({ key, body: Buffer.from(key) });
    const top = await tos.listObjectsType2({ prefix: 'l/', delimiter: '/', listOnlyOnce: true });
    expect(top.data.Contents.map((o) => o.Key)).toEqual(['l/b', 'l/c']);
    expect(top.data.CommonPrefixes.map((p) => p.Prefix)).toEqual(['l/a/', 'l/d/']);
    expect(top.data.Contents[0]).toMatchObject({
      Size: 3,
      StorageClass: 'STANDARD',
      HashCrc64ecma: crc64(Buffer.from('l/b')),
    });

    const first = await tos.listObjectsType2({ prefix: 'l/', maxKeys: 2, listOnlyOnce: true });
    expect(first.data.Contents.map((o) => o.Key)).toEqual(['l/a/1', 'l/a/2']);
    expect(first.data.IsTruncated).toBe(true);
    const next = await tos.listObjectsType2({
      prefix: 'l/',
      maxKeys: 10,
      continuationToken: first.data.NextContinuationToken,
      listOnlyOnce: true,
    });
    expect(next.data.Contents.map((o) => o.Key)).toEqual(['l/b', 'l/c', 'l/d/3']);
    expect(next.data.IsTruncated).toBe(false);

    const deleted = await tos.deleteMultiObjects({ objects: ['l/a/1', 'l/a/2', 'l/b'].map((key) => ({ key })) });
    expect(deleted.data.Deleted.map((d) => d.Key)).toEqual(['l/a/1', 'l/a/2', 'l/b']);
    const rest = await tos.listObjectsType2({ prefix: 'l/' });
    expect(rest.data.Contents.map((o) => o.Key)).toEqual(['l/c', 'l/d/3']);
  });

  it('copies an object, keeping or replacing its metadata, and lists and creates buckets', async () => {
    await tos.createBucket({ bucket: 'archive' });
    await tos.putObject({ key: 'src.json', body: Buffer.from('{"a":1}'), meta: { kept: 'yes' } });
    const copied = await tos.copyObject({ srcBucket: BUCKET, srcKey: 'src.json', bucket: 'archive', key: 'copy.json' });
    expect(copied.data.ETag).toBe(`"${createHash('md5').update('{"a":1}').digest('hex')}"`);
    const head = await tos.headObject({ bucket: 'archive', key: 'copy.json' });
    expect(head.data['x-tos-meta-kept']).toBe('yes');
    expect(head.data['content-type']).toBe('application/json');
    await tos.copyObject({
      srcBucket: BUCKET,
      srcKey: 'src.json',
      key: 'replaced.txt',
      metadataDirective: 'REPLACE',
      contentType: 'text/plain',
      meta: { fresh: '1' },
    });
    const replaced = await tos.headObject({ key: 'replaced.txt' });
    expect(replaced.data['x-tos-meta-kept']).toBeUndefined();
    expect(replaced.data['x-tos-meta-fresh']).toBe('1');

    const buckets = await tos.listBuckets();
    expect(buckets.data.Buckets.map((b) => b.Name)).toEqual(['archive', BUCKET]);
    expect(buckets.data.Buckets[0]).toMatchObject({
      Location: 'cn-beijing',
      ExtranetEndpoint: 'tos-cn-beijing.volces.com',
    });
    expect((await serverError(tos.createBucket({ bucket: 'archive' }))).code).toBe('BucketAlreadyOwnedByYou');
    expect((await serverError(tos.listObjectsType2({ bucket: 'no-such-bucket' }))).code).toBe('NoSuchBucket');
  });

  it('runs a multipart upload: create, upload parts, list them, complete; and aborts another', async () => {
    const parts = [randomBytes(5 * 1024 * 1024), randomBytes(1000)];
    const created = await tos.createMultipartUpload({ key: 'video.mp4' });
    const uploadId = created.data.UploadId;
    const etags: string[] = [];
    for (const [index, body] of parts.entries()) {
      const answer = await tos.uploadPart({ key: 'video.mp4', uploadId, partNumber: index + 1, body });
      expect(answer.data.hashCrc64ecma).toBe(crc64(body));
      etags.push(answer.data.ETag);
    }
    const listed = await tos.listParts({ key: 'video.mp4', uploadId });
    expect(listed.data.Parts.map((p) => [p.PartNumber, p.Size])).toEqual([
      [1, parts[0]!.length],
      [2, 1000],
    ]);
    const done = await tos.completeMultipartUpload({
      key: 'video.mp4',
      uploadId,
      parts: etags.map((eTag, i) => ({ eTag, partNumber: i + 1 })),
    });
    expect(done.data.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
    expect(done.data.HashCrc64ecma).toBe(crc64(Buffer.concat(parts)));
    const head = await tos.headObject({ key: 'video.mp4' });
    expect(head.data['content-type']).toBe('video/mp4');
    expect(Number(head.data['content-length'])).toBe(parts[0]!.length + 1000);

    const other = await tos.createMultipartUpload({ key: 'dropped.bin' });
    await tos.uploadPart({ key: 'dropped.bin', uploadId: other.data.UploadId, partNumber: 1, body: Buffer.from('x') });
    const inProgress = await tos.listMultipartUploads({});
    expect(inProgress.data.Uploads.map((u) => [u.Key, u.UploadId])).toEqual([['dropped.bin', other.data.UploadId]]);
    await tos.abortMultipartUpload({ key: 'dropped.bin', uploadId: other.data.UploadId });
    expect((await serverError(tos.listParts({ key: 'dropped.bin', uploadId: other.data.UploadId }))).code).toBe(
      'NoSuchUpload',
    );
  });

  it("passes the SDK's CRC-64 check of stream bodies, put and uploaded as a part", async () => {
    const checked = client({ enableCRC: true });
    const data = randomBytes(200_000);
    const put = await checked.putObject({ key: 'stream.bin', body: Readable.from([data]), contentLength: data.length });
    expect(put.headers['x-tos-hash-crc64ecma']).toBe(crc64(data));
    const got = await checked.getObjectV2({ key: 'stream.bin' });
    expect((await readAll(got.data.content)).equals(data)).toBe(true);
    const { data: upload } = await checked.createMultipartUpload({ key: 'parts.bin' });
    const part = await checked.uploadPart({
      key: 'parts.bin',
      uploadId: upload.UploadId,
      partNumber: 1,
      body: Readable.from([data]),
      contentLength: data.length,
    } as Parameters<TosClient['uploadPart']>[0]);
    expect(part.data.hashCrc64ecma).toBe(crc64(data));
  });

  it("takes the SDK's uploadFile (parts in parallel, CRC-64 combined and checked) and downloadFile", async () => {
    const checked = client({ enableCRC: true });
    const data = randomBytes(11 * 1024 * 1024 + 123);
    const file = join(dir, 'upload-source.bin');
    writeFileSync(file, data);
    const uploaded = await checked.uploadFile({ key: 'files/big.bin', file, partSize: 5 * 1024 * 1024, taskNum: 3 });
    expect(uploaded.data.HashCrc64ecma).toBe(crc64(data));
    const target = join(dir, 'download-target.bin');
    await checked.downloadFile({ key: 'files/big.bin', filePath: target, partSize: 4 * 1024 * 1024 });
    expect(readFileSync(target).equals(data)).toBe(true);
  });

  it('answers the other everyday calls: headBucket, deleteBucket, files, buffers, response overrides', async () => {
    await tos.createBucket({ bucket: 'scratch' });
    expect((await tos.headBucket('scratch')).statusCode).toBe(200);
    const source = join(dir, 'from-file.txt');
    writeFileSync(source, 'from a file');
    await tos.putObjectFromFile({ bucket: 'scratch', key: 'f.txt', filePath: source });
    const target = join(dir, 'to-file.txt');
    await tos.getObjectToFile({ bucket: 'scratch', key: 'f.txt', filePath: target });
    expect(readFileSync(target, 'utf8')).toBe('from a file');
    const asBuffer = await tos.getObjectV2({ bucket: 'scratch', key: 'f.txt', dataType: 'buffer' });
    expect((asBuffer.data.content as Buffer).toString()).toBe('from a file');
    const url = tos.getPreSignedUrl({
      bucket: 'scratch',
      key: 'f.txt',
      response: { contentDisposition: 'attachment; filename="f.txt"' },
    });
    const download = await fetch(url);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="f.txt"');
    expect((await serverError(tos.deleteBucket('scratch'))).code).toBe('BucketNotEmpty');
    await tos.deleteObject({ bucket: 'scratch', key: 'f.txt' });
    expect((await tos.deleteBucket('scratch')).statusCode).toBe(204);
    expect((await serverError(tos.headBucket('scratch'))).statusCode).toBe(404);
  });

  it('mints presigned GET and PUT URLs that work for a plain HTTP client until they expire', async () => {
    const put = tos.getPreSignedUrl({ key: 'up/photo.png', method: 'PUT', expires: 600 });
    expect(put).toMatch(
      /^https:\/\/media\.tos-cn-beijing\.volces\.com\/up\/photo\.png\?X-Tos-Algorithm=TOS4-HMAC-SHA256/,
    );
    const bytes = randomBytes(3000);
    const uploaded = await fetch(put, { method: 'PUT', body: bytes });
    expect(uploaded.status).toBe(200);
    const get = tos.getPreSignedUrl({ key: 'up/photo.png', expires: 600 });
    const downloaded = await fetch(get);
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);
    // The same URL for another key, or another method, is refused.
    const other = await fetch(get.replace('/up/photo.png', '/up/other.png'));
    expect(other.status).toBe(403);
    expect(((await other.json()) as { Code: string }).Code).toBe('SignatureDoesNotMatch');
    expect((await fetch(get, { method: 'DELETE' })).status).toBe(403);
  });

  it('refuses an expired presigned URL with AccessDenied', async () => {
    await tos.putObject({ key: 'soon-gone.txt', body: Buffer.from('x') });
    const url = tos.getPreSignedUrl({ key: 'soon-gone.txt', expires: 1 });
    // Signed to the second: two and a half seconds are past any rounding.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const answer = await fetch(url);
    expect(answer.status).toBe(403);
    const body = (await answer.json()) as { Code: string; Message: string; RequestId: string };
    expect(body.Code).toBe('AccessDenied');
    expect(body.Message).toContain('Request has expired');
    expect(body.RequestId).toMatch(/^[0-9a-f]{24}$/);
  });

  it('refuses a wrong secret with SignatureDoesNotMatch, and says in the log what it signed', async () => {
    warnings.length = 0;
    const wrong = client({ accessKeySecret: 'not-the-secret' });
    const error = await serverError(wrong.putObject({ key: 'x.txt', body: Buffer.from('x') }));
    expect(error.code).toBe('SignatureDoesNotMatch');
    expect(error.statusCode).toBe(403);
    expect(error.requestId).toMatch(/^[0-9a-f]{24}$/);
    expect(error.message).toContain('TOS_SECRET_KEY');
    expect(warnings.join('\n')).toContain('TOS4-HMAC-SHA256\n');
    expect(warnings.join('\n')).toContain('PUT\n/x.txt\n');
  });

  it('refuses a wrong access key with InvalidAccessKeyId', async () => {
    const error = await serverError(client({ accessKeyId: 'AKLTother' }).listBuckets());
    expect(error.code).toBe('InvalidAccessKeyId');
  });

  it('refuses a signed header changed after signing with SignatureDoesNotMatch', async () => {
    const tampered = client();
    // Runs after the SDK signed the request, before it is sent.
    (
      tampered as unknown as {
        axiosInst: { interceptors: { request: { use(f: (c: { headers: Record<string, string> }) => unknown): void } } };
      }
    ).axiosInst.interceptors.request.use((config) => {
      config.headers['x-tos-meta-owner'] = 'mallory';
      return config;
    });
    const error = await serverError(
      tampered.putObject({ key: 't.txt', body: Buffer.from('x'), meta: { owner: 'dev' } }),
    );
    expect(error.code).toBe('SignatureDoesNotMatch');
    expect((await serverError(tos.headObject({ key: 't.txt' }))).statusCode).toBe(404);
  });
  it("answers bad input in TOS's shape, with the value and the fix named", async () => {
    const code = async (promise: Promise<unknown>) => {
      const error = await serverError(promise);
      return [error.statusCode, error.code ?? error.ec, error.message];
    };
    expect(await code(tos.listObjectsType2({ maxKeys: 5000, listOnlyOnce: true }))).toEqual([
      400,
      'InvalidArgument',
      'max-keys 5000 is not valid: give a whole number from 0 to 1000',
    ]);
    const [, tokenCode] = await code(tos.listObjectsType2({ continuationToken: 'garbage', listOnlyOnce: true }));
    expect(tokenCode).toBe('InvalidArgument');
    await tos.putObject({ key: 'small.txt', body: Buffer.from('12345') });
    const [rangeStatus, rangeCode, rangeMessage] = await code(
      tos.getObjectV2({ key: 'small.txt', range: 'bytes=100-' }),
    );
    expect([rangeStatus, rangeCode]).toEqual([416, 'InvalidRange']);
    expect(rangeMessage).toBe(''); // getObjectV2 parses no body: the code is in x-tos-ec
    const { data: upload } = await tos.createMultipartUpload({ key: 'bad.bin' });
    await tos.uploadPart({ key: 'bad.bin', uploadId: upload.UploadId, partNumber: 1, body: Buffer.from('x') });
    const [, partCode, partMessage] = await code(
      tos.completeMultipartUpload({
        key: 'bad.bin',
        uploadId: upload.UploadId,
        parts: [{ eTag: '"0"', partNumber: 1 }],
      }),
    );
    expect(partCode).toBe('InvalidPart');
    expect(partMessage).toContain('give the ETag that uploadPart answered');
    expect(
      (
        await code(
          tos.completeMultipartUpload({
            key: 'bad.bin',
            uploadId: 'f'.repeat(32),
            parts: [{ eTag: '"0"', partNumber: 1 }],
          }),
        )
      )[1],
    ).toBe('NoSuchUpload');
    expect((await code(tos.getObjectAcl({ key: 'small.txt' })))[1]).toBe('NotImplemented');

    // Unsigned, and malformed: answered, never a crash.
    const anonymous = await fetch('https://media.tos-cn-beijing.volces.com/small.txt');
    expect(anonymous.status).toBe(403);
    expect(await anonymous.json()).toMatchObject({ Code: 'AccessDenied', HostId: 'media.tos-cn-beijing.volces.com' });
    const badPath = await fetch(`${tos.getPreSignedUrl({ key: 'small.txt' }).replace('/small.txt', '/%E0%A4%A')}`);
    expect(badPath.status).toBe(403);
    expect(((await badPath.json()) as { Code: string }).Code).toBe('AccessDenied');
  });
});
