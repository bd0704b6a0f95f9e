/**
 * `startStorage` of `cloudfn/testing`: the local TOS in process for one test. The platform's
 * sample (the real `@volcengine/tos-sdk`, endpoint `tos-cn-beijing.volces.com`, the injected keys)
 * puts, heads and lists against it unchanged; the mini-program's `uploadFile` then
 * `getTempFileURL` give a URL that curl downloads byte for byte, and the function side reads the
 * same object at `cloudPath`; a URL minted by cloudfn is the one the SDK mints (an independent
 * implementation), and `stop` removes a temporary store and puts the variables back.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TosClient } from '@volcengine/tos-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCloud } from '../../src/client/index.js';
import { presignPlatformGet } from '../../src/platform/storage/presign.js';
import { readDatabase, seedDatabase, startStorage, type TestStorage } from '../../src/testing/index.js';

/** curl in a child process, awaited: the server answering it runs in this process. */
const curl = async (...args: string[]): Promise<Buffer> =>
  (await promisify(execFile)('curl', args, { encoding: 'buffer' })).stdout;

describe('startStorage', () => {
  let storage: TestStorage;
  let files: string;
  const client = (): TosClient =>
    new TosClient({
      accessKeyId: process.env['TOS_ACCESS_KEY']!,
      accessKeySecret: process.env['TOS_SECRET_KEY']!,
      region: process.env['TOS_REGION']!,
      endpoint: 'tos-cn-beijing.volces.com',
    });

  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), 'cloudfn-storage-files-'));
    storage = await startStorage();
  });
  afterAll(async () => {
    await storage?.stop();
    rmSync(files, { recursive: true, force: true });
  });

  it('gives the platform sample the variables and answers it unchanged: put, head, list', async () => {
    expect(storage.env).toMatchObject({ TOS_REGION: 'cn-beijing', TOS_ENDPOINT: 'tos-cn-beijing.volces.com' });
    expect(process.env['TOS_BUCKET']).toBe(storage.env.TOS_BUCKET);
    const tos = client();
    const bucket = process.env['TOS_BUCKET']!;
    await tos.putObject({ bucket, key: 'notes/a.txt', body: Buffer.from('hello'), contentType: 'text/plain' });
    const head = await tos.headObject({ bucket, key: 'notes/a.txt' });
    expect(head.data['content-length']).toBe('5');
    const listed = await tos.listObjectsType2({ bucket, prefix: 'notes/' });
    expect(listed.data.Contents.map((c) => c.Key)).toEqual(['notes/a.txt']);
  });

  it("takes the mini-program's uploadFile, then getTempFileURL gives a URL curl downloads byte for byte", async () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2, 3, 10, 13, 0x80]);
    const path = join(files, 'photo.jpg');
    writeFileSync(path, bytes);
    const cloud = createCloud({ envID: 'env-1', serviceID: 'album', baseUrl: storage.url });
    const { fileID } = await cloud.uploadFile({ cloudPath: 'photos/p1.jpg', filePath: path });
    expect(fileID).toBe(`cloud://env-1.${storage.env.TOS_BUCKET}/photos/p1.jpg`);

    const { fileList } = await cloud.getTempFileURL({ fileList: [{ fileID, maxAge: 120 }] });
    expect(fileList[0]).toMatchObject({ fileID, status: 0, errMsg: 'ok', maxAge: 120 });
    const url = fileList[0]!.tempFileURL;
    expect(
      url.startsWith(`${storage.url}/_cloudfn/tos/${storage.env.TOS_BUCKET}.tos-cn-beijing.volces.com/photos/p1.jpg?`),
    ).toBe(true);
    expect((await curl('-sf', url)).equals(bytes)).toBe(true);

    // The server side reads the same object at cloudPath.
    const got = await client().getObjectV2({
      bucket: storage.env.TOS_BUCKET,
      key: 'photos/p1.jpg',
      dataType: 'buffer',
    });
    expect((got.data.content as Buffer).equals(bytes)).toBe(true);

    // A URL with its signature changed is refused with TOS's code.
    const tampered = url.replace(
      /X-Tos-Signature=([0-9a-f])/,
      (_m, c: string) => `X-Tos-Signature=${c === '0' ? '1' : '0'}`,
    );
    const refused = (await curl('-s', '-o', '/dev/null', '-w', '%{http_code}', tampered)).toString();
    expect(refused).toBe('403');
  });

  it('mints the URL the SDK mints for the same key, time and expiry', () => {
    vi.useFakeTimers({ now: new Date('2026-12-06T09:00:00Z'), toFake: ['Date'] });
    try {
      const fromSdk = client().getPreSignedUrl({
        bucket: storage.env.TOS_BUCKET,
        key: 'photos/p 1+(x).jpg',
        expires: 600,
      });
      const sdk = new URL(fromSdk);
      // The region the SDK signed for, as its credential names it (<key>/<date>/<region>/tos/request).
      const region = sdk.searchParams.get('X-Tos-Credential')!.split('/')[2]!;
      const ours = presignPlatformGet({
        keys: { accessKey: storage.env.TOS_ACCESS_KEY, secretKey: storage.env.TOS_SECRET_KEY },
        region,
        endpoint: 'tos-cn-beijing.volces.com',
        bucket: storage.env.TOS_BUCKET,
        key: 'photos/p 1+(x).jpg',
        expires: 600,
      });
      expect(ours.host).toBe(sdk.host);
      expect(ours.pathname).toBe(sdk.pathname);
      expect(Object.fromEntries(ours.searchParams)).toEqual(Object.fromEntries(sdk.searchParams));
    } finally {
      vi.useRealTimers();
    }
  });

  it('removes a temporary store and puts the variables back at stop', async () => {
    const before = process.env['TOS_BUCKET'];
    const other = await startStorage({ setEnv: false });
    expect(existsSync(other.dir)).toBe(true);
    expect(process.env['TOS_BUCKET']).toBe(before);
    await other.stop();
    expect(existsSync(other.dir)).toBe(false);
  });
});

describe('seedDatabase and readDatabase with startStorage', () => {
  it('seeds the buckets of a data file into the store and reads them back; refuses them without { storage }', async () => {
    const storage = await startStorage({ setEnv: false });
    try {
      const base64 = Buffer.from('seeded').toString('base64');
      const file = {
        $cloudfn: 'data/1' as const,
        storage: {
          buckets: [
            {
              name: storage.env.TOS_BUCKET,
              objects: [{ key: 'a/b.txt', contentType: 'text/plain', meta: {}, headers: {}, base64 }],
            },
          ],
        },
      };
      await expect(seedDatabase(file)).rejects.toThrow(
        'seedDatabase() was given storage data but no local TOS: pass { storage } from startStorage()',
      );
      await seedDatabase(file, { storage });
      expect((await storage.store.headObject(storage.env.TOS_BUCKET, 'a/b.txt')).size).toBe(6);
      const read = await readDatabase({ storage });
      expect(read.storage?.buckets).toEqual([
        {
          name: storage.env.TOS_BUCKET,
          objects: [{ key: 'a/b.txt', contentType: 'text/plain', meta: {}, headers: {}, base64 }],
        },
      ]);
    } finally {
      await storage.stop();
    }
  });
});
