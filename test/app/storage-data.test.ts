/**
 * The object store's data in the app's data file: every bucket and object exported (bytes in
 * base64, content type, metadata, stored headers), imported back into an empty store byte for
 * byte, replaced or merged by key, reset to nothing (the default bucket back, empty), and a bad
 * `storage` entry refused whole in one line naming it before anything is written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatAppData, parseAppData } from '../../src/app/index.js';
import { exportStorage, importStorage, resetStorage } from '../../src/app/data/storage-data.js';
import { ObjectStore } from '../../src/platform/storage/object-store.js';

const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);

describe('the object store in the data file', () => {
  let root: string;
  const dir = (name: string): string => join(root, name);
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cloudfn-storage-data-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('exports every bucket and object, and imports them into another store byte for byte', async () => {
    const source = new ObjectStore({ dir: dir('a'), defaultBucket: 'cloudfn-dev' });
    await source.putObject('cloudfn-dev', 'avatars/ann.png', bytes, {
      contentType: 'image/png',
      meta: { owner: 'ann' },
      headers: { 'cache-control': 'max-age=60' },
    });
    await source.createBucket('media');
    await source.putObject('media', 'v/1.txt', 'hello');

    const data = await exportStorage(dir('a'));
    expect(data.buckets.map((b) => [b.name, b.objects.map((o) => o.key)])).toEqual([
      ['cloudfn-dev', ['avatars/ann.png']],
      ['media', ['v/1.txt']],
    ]);
    expect(data.buckets[0]!.objects[0]).toEqual({
      key: 'avatars/ann.png',
      contentType: 'image/png',
      meta: { owner: 'ann' },
      headers: { 'cache-control': 'max-age=60' },
      base64: bytes.toString('base64'),
    });

    // Through the file's text, as db export writes it and db import reads it.
    const file = parseAppData(formatAppData({ documents: {}, storage: data }), 'out.json');
    expect(await importStorage(dir('b'), file.storage!, { merge: false })).toEqual([
      { name: 'cloudfn-dev', count: 1 },
      { name: 'media', count: 1 },
    ]);
    const target = new ObjectStore({ dir: dir('b') });
    const { info, body } = await target.getObject('cloudfn-dev', 'avatars/ann.png');
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(info).toMatchObject({ contentType: 'image/png', meta: { owner: 'ann' } });
    expect(info.etag).toBe((await source.headObject('cloudfn-dev', 'avatars/ann.png')).etag);
  });

  it('replaces a bucket named by the file, or with merge writes over its keys and keeps the rest', async () => {
    const store = new ObjectStore({ dir: dir('a') });
    await store.createBucket('media');
    await store.putObject('media', 'keep.txt', 'old');
    await store.putObject('media', 'same.txt', 'old');
    const file = {
      buckets: [
        {
          name: 'media',
          objects: [
            {
              key: 'same.txt',
              contentType: 'text/plain',
              meta: {},
              headers: {},
              base64: Buffer.from('new').toString('base64'),
            },
          ],
        },
      ],
    };

    expect(await importStorage(dir('a'), file, { merge: true })).toEqual([{ name: 'media', count: 2 }]);
    expect((await store.headObject('media', 'same.txt')).size).toBe(3);
    expect((await store.listObjects('media')).objects.map((o) => o.key)).toEqual(['keep.txt', 'same.txt']);

    expect(await importStorage(dir('a'), file, { merge: false })).toEqual([{ name: 'media', count: 1 }]);
    expect((await store.listObjects('media')).objects.map((o) => o.key)).toEqual(['same.txt']);
  });

  it('resets the store to nothing, the default bucket back and empty', async () => {
    const store = new ObjectStore({ dir: dir('a'), defaultBucket: 'cloudfn-dev' });
    await store.putObject('cloudfn-dev', 'a', 'x');
    await store.createBucket('media');
    expect(await resetStorage(dir('a'))).toEqual([
      { name: 'cloudfn-dev', count: 1 },
      { name: 'media', count: 0 },
    ]);
    expect(await new ObjectStore({ dir: dir('a') }).listBuckets()).toEqual([]);
    // With the default bucket named, it comes back empty: a running dev's store still finds it.
    await new ObjectStore({ dir: dir('a'), defaultBucket: 'cloudfn-dev' }).putObject('cloudfn-dev', 'b', 'y');
    expect(await resetStorage(dir('a'), 'cloudfn-dev')).toEqual([{ name: 'cloudfn-dev', count: 1 }]);
    const after = new ObjectStore({ dir: dir('a') });
    expect((await after.listBuckets()).map((b) => b.name)).toEqual(['cloudfn-dev']);
    expect((await after.listObjects('cloudfn-dev')).objects).toEqual([]);
  });

  it.each([
    [{ buckets: {} }, '"storage" must be an object { "buckets": [{ "name", "objects": [...] }] }'],
    [
      { buckets: [{ name: 'Bad_Name', objects: [] }] },
      'storage bucket 0: name must be 3 to 63 lowercase letters, digits and "-", got "Bad_Name"',
    ],
    [
      { buckets: [{ name: 'media', objects: [{ key: '', base64: '' }] }] },
      'storage bucket "media" object 0: key must be a non-empty string, got ""',
    ],
    [
      { buckets: [{ name: 'media', objects: [{ key: 'a', base64: '***' }] }] },
      'storage bucket "media" object 0 ("a"): base64 must be the bytes in base64',
    ],
    [
      { buckets: [{ name: 'media', objects: [{ key: 'a', base64: '', meta: { n: 1 } }] }] },
      'storage bucket "media" object 0 ("a"): meta must be an object of strings',
    ],
    [
      {
        buckets: [
          { name: 'media', objects: [] },
          { name: 'media', objects: [] },
        ],
      },
      'storage bucket "media" is listed twice',
    ],
  ])('refuses %j in one line naming it', (storage, message) => {
    const text = JSON.stringify({ $cloudfn: 'data/1', documents: {}, storage });
    expect(() => parseAppData(text, 'seed.json')).toThrow(`seed.json: ${message}`);
    expect(() => parseAppData(text, 'seed.json')).toThrow('nothing was written');
  });
});
