/**
 * The storage methods of `createCloud` against the local store's routes (files-routes.ts) on a
 * real socket: `uploadFile` stores a local file and answers its `fileID`, `downloadFile` writes it
 * back to a temporary file byte for byte, `getTempFileURL` and `deleteFile` answer a status per
 * file (0, or 404 for a missing one), each in the promise and the callback forms; a user not
 * signed in cannot upload (401, as the platform refuses one), and bad options, a missing base URL
 * and a server that does not answer fail in the platform's `fail` shape.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudFailure, createCloud } from '../../src/client/index.js';
import { filesRoute } from '../../src/platform/storage/files-routes.js';
import { ObjectStore } from '../../src/platform/storage/object-store.js';

describe('createCloud storage methods', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  let store: ObjectStore;
  const file = (): string => join(dir, 'avatar.png');
  const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255, 254, 10]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloudfn-cloud-storage-'));
    writeFileSync(file(), bytes);
    store = new ObjectStore({ dir: join(dir, 'store'), defaultBucket: 'cloudfn-dev' });
    const route = filesRoute({
      store,
      bucket: 'cloudfn-dev',
      presignGet: (bucket, key, maxAgeS) => `${baseUrl}/signed/${bucket}/${key}?expires=${maxAgeS}`,
    });
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      if (url.startsWith('/_cloudfn/files/')) route(req, res, url.slice('/_cloudfn/files'.length));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a local file and downloads it back byte for byte (promise form)', async () => {
    const cloud = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl });
    const uploaded = await cloud.uploadFile({ cloudPath: 'avatars/a.png', filePath: file() });
    expect(uploaded).toEqual({
      errMsg: 'Cloud.uploadFile:ok',
      fileID: 'cloud://env-1.cloudfn-dev/avatars/a.png',
      statusCode: 200,
    });
    const head = await store.headObject('cloudfn-dev', 'avatars/a.png');
    expect(head.size).toBe(bytes.length);

    const downloaded = await cloud.downloadFile({ fileID: uploaded.fileID });
    expect(downloaded.errMsg).toBe('Cloud.downloadFile:ok');
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.tempFilePath.startsWith(tmpdir())).toBe(true);
    expect(downloaded.tempFilePath.endsWith('a.png')).toBe(true);
    expect(readFileSync(downloaded.tempFilePath).equals(bytes)).toBe(true);
  });

  it('answers a temporary URL per file, status 0 or 404, with the maxAge asked', async () => {
    const cloud = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl });
    const { fileID } = await cloud.uploadFile({ cloudPath: 'b.txt', filePath: file() });
    const missing = 'cloud://env-1.cloudfn-dev/nope.txt';
    const answer = await cloud.getTempFileURL({ fileList: [fileID, { fileID: missing, maxAge: 60 }] });
    expect(answer.errMsg).toBe('Cloud.getTempFileURL:ok');
    expect(answer.fileList).toEqual([
      {
        fileID,
        tempFileURL: `${baseUrl}/signed/cloudfn-dev/b.txt?expires=86400`,
        maxAge: 86400,
        status: 0,
        errMsg: 'ok',
      },
      { fileID: missing, tempFileURL: '', maxAge: 0, status: 404, errMsg: `no file has fileID "${missing}"` },
    ]);
  });

  it('deletes files through the callbacks, complete last, each with its status', async () => {
    const cloud = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl });
    const { fileID } = await cloud.uploadFile({ cloudPath: 'c/d.bin', filePath: file() });
    const seen: string[] = [];
    const result = await new Promise((resolve) => {
      cloud.deleteFile({
        fileList: [fileID, fileID, 'not-an-id'],
        success: (res) => seen.push(`success ${res.errMsg}`),
        fail: () => seen.push('fail'),
        complete: (res) => resolve(res),
      });
    });
    expect(seen).toEqual(['success Cloud.deleteFile:ok']);
    expect(result).toMatchObject({
      fileList: [
        { fileID, status: 0, errMsg: 'ok' },
        { fileID, status: 404 },
        { fileID: 'not-an-id', status: 400 },
      ],
    });
    await expect(store.headObject('cloudfn-dev', 'c/d.bin')).rejects.toMatchObject({ code: 'NoSuchKey' });
  });

  it('refuses an upload by a user not signed in (401), and takes a signed-in one', async () => {
    const anonymous = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl, user: { anonymous: true } });
    const failure = await anonymous.uploadFile({ cloudPath: 'x.png', filePath: file() }).catch((e: CloudFailure) => e);
    expect(failure).toMatchObject({ errNo: 21102, code: 401 });
    expect((failure as CloudFailure).errMsg).toMatch(/^Cloud\.uploadFile:fail uploadFile needs a logged-in user/);
    await expect(store.headObject('cloudfn-dev', 'x.png')).rejects.toMatchObject({ code: 'NoSuchKey' });

    const ann = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl, user: { openid: 'ann' } });
    expect((await ann.uploadFile({ cloudPath: 'x.png', filePath: file() })).fileID).toBe(
      'cloud://env-1.cloudfn-dev/x.png',
    );
  });

  it('fails in the platform shape: bad options (20000), no such file (404), no answer (21100)', async () => {
    const cloud = createCloud({ envID: 'env-1', serviceID: 'rank', baseUrl });
    const failures: CloudFailure[] = [];
    const fail = (f: CloudFailure) => failures.push(f);
    await cloud.uploadFile({ cloudPath: '/lead.png', filePath: file() }).catch(fail);
    await cloud.uploadFile({ cloudPath: 'a.png', filePath: join(dir, 'absent.png') }).catch(fail);
    await cloud.downloadFile({ fileID: 'a.png' }).catch(fail);
    await cloud.downloadFile({ fileID: 'cloud://env-1.cloudfn-dev/absent.png' }).catch(fail);
    await cloud.getTempFileURL({ fileList: [] }).catch(fail);
    await createCloud({ envID: 'e', serviceID: 's', baseUrl: 'http://127.0.0.1:9' })
      .deleteFile({ fileList: ['cloud://e.b/k'] })
      .catch(fail);
    expect(failures.map((f) => [f.errNo, f.code])).toEqual([
      [20000, 20000],
      [20000, 20000],
      [20000, 20000],
      [21102, 404],
      [20000, 20000],
      [21100, 21100],
    ]);
    expect(failures[0]!.errMsg).toBe(
      'Cloud.uploadFile:fail invalid param: cloudPath must not start with "/", got "/lead.png"; write it as "lead.png"',
    );
    expect(failures[1]!.errMsg).toMatch(
      /^Cloud\.uploadFile:fail invalid param: filePath ".*absent\.png" cannot be read \(ENOENT\)$/,
    );
    expect(failures[2]!.errMsg).toMatch(/^Cloud\.downloadFile:fail invalid param: fileID must be a string cloud:\/\//);
    expect(failures[3]!.errMsg).toBe(
      `Cloud.downloadFile:fail no file has fileID "cloud://env-1.cloudfn-dev/absent.png"; upload it first (uploadFile), or look in the console's Storage panel`,
    );
    expect(failures[5]!.errMsg).toMatch(/^Cloud\.deleteFile:fail network error calling http:\/\/127\.0\.0\.1:9\//);
  });
});
