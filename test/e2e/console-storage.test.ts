/**
 * The dev console's Storage panel in chromium, over a project with `"components": { "tos": true }`:
 * it lists the buckets (the default one named by `TOS_BUCKET`), the objects and folders of the one
 * picked under a prefix, follows a function's write without a click, uploads a file at the
 * prefix, downloads an object byte for byte, copies a presigned URL that curl then downloads
 * without credentials, and deletes an object.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/dev/index.js';
import { ObjectStore } from '../../src/platform/storage/object-store.js';
import { HAS_CHROMIUM, launchChromium } from '../testing/browser.js';
import { REPO } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';

/** curl in a child process, awaited: the server answering it runs in this process. */
const curl = async (...args: string[]): Promise<Buffer> =>
  (await promisify(execFile)('curl', args, { encoding: 'buffer' })).stdout;

describe.skipIf(!HAS_CHROMIUM)('the console Storage panel in chromium', () => {
  let project: TempProject;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  let bucket: string;
  const store = (): ObjectStore =>
    new ObjectStore({ dir: join(project.root, '.cloudfn', 'storage'), defaultBucket: 'cloudfn-dev' });
  const keys = (): Promise<string[]> =>
    page.locator('#storage .storage-object').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key') ?? ''));

  beforeAll(async () => {
    project = tempProject({
      'cloudfn.config.json': JSON.stringify({ components: { tos: true } }),
      // The platform's sample: the SDK with the injected keys, against the platform's endpoint.
      'functions/put.ts': `import { TosClient } from '@volcengine/tos-sdk';
export default async (params: { key: string; text: string }) => {
  const client = new TosClient({
    accessKeyId: process.env.TOS_ACCESS_KEY!,
    accessKeySecret: process.env.TOS_SECRET_KEY!,
    region: process.env.TOS_REGION!,
    endpoint: 'tos-cn-beijing.volces.com',
  });
  await client.putObject({ bucket: process.env.TOS_BUCKET!, key: params.key, body: Buffer.from(params.text), contentType: 'text/plain' });
  return { ok: true };
};
`,
    });
    // The function's @volcengine/tos-sdk import resolves to the repository's.
    symlinkSync(join(REPO, 'node_modules'), join(project.root, 'node_modules'));
    dev = await startDevServer({
      root: project.root,
      port: 0,
      typecheck: false,
      sink: { write: () => {} },
      handleSignals: false,
    });
    bucket = 'cloudfn-dev';
    await store().putObject(bucket, 'avatars/ann.png', Buffer.from([1, 2, 3, 255]), { contentType: 'image/png' });
    await store().putObject(bucket, 'readme.txt', 'hello');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
    page.setDefaultTimeout(5000);
    await page.goto(`${dev.url}/_cloudfn/`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    project?.remove();
  });

  it('lists the buckets, then the folders and objects of the one picked, by prefix', async () => {
    await expect
      .poll(() => page.locator('#storage .storage-bucket').allTextContents())
      .toEqual([`${bucket} (TOS_BUCKET)`]);
    await page.click(`#storage .storage-bucket[data-bucket="${bucket}"]`);
    await expect.poll(() => page.locator('#storage .storage-folder').allTextContents()).toEqual(['avatars/']);
    await expect.poll(keys).toEqual(['readme.txt']);
    await page.click('#storage .storage-folder button');
    await expect.poll(keys).toEqual(['avatars/ann.png']);
    expect(await page.locator('#storage .storage-object').textContent()).toContain('4 B image/png');
  });

  it("follows a function's write without a click", async () => {
    const res = await fetch(`${dev.url}/put?key=${encodeURIComponent('avatars/bob.txt')}&text=hi`);
    expect(res.status).toBe(200);
    await expect.poll(keys, { timeout: 5000 }).toEqual(['avatars/ann.png', 'avatars/bob.txt']);
  });

  it('uploads a file at the prefix and downloads an object byte for byte', async () => {
    const file = join(project.root, 'cat.bin');
    const bytes = Buffer.from([0, 9, 8, 7, 200, 201]);
    writeFileSync(file, bytes);
    await page.setInputFiles('#storage .storage-upload-file', file);
    await expect.poll(() => page.textContent('#storage .storage-status')).toBe('uploaded avatars/cat.bin');
    await expect.poll(keys).toEqual(['avatars/ann.png', 'avatars/bob.txt', 'avatars/cat.bin']);
    expect((await store().headObject(bucket, 'avatars/cat.bin')).size).toBe(6);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#storage .storage-object[data-key="avatars/cat.bin"] .storage-download'),
    ]);
    expect(download.suggestedFilename()).toBe('cat.bin');
    expect(readFileSync(await download.path()).equals(bytes)).toBe(true);
  });

  it('shows a presigned URL that curl downloads without credentials', async () => {
    await page.click('#storage .storage-object[data-key="avatars/ann.png"] .storage-presign');
    await expect.poll(() => page.locator('#storage .storage-url').inputValue()).toMatch(/X-Tos-Signature=/);
    const url = await page.locator('#storage .storage-url').inputValue();
    const body = await curl('-sf', url);
    expect(body.equals(Buffer.from([1, 2, 3, 255]))).toBe(true);
  });

  it('deletes an object after asking', async () => {
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#storage .storage-object[data-key="avatars/bob.txt"] .storage-delete');
    await expect.poll(keys).toEqual(['avatars/ann.png', 'avatars/cat.bin']);
    await expect(store().headObject(bucket, 'avatars/bob.txt')).rejects.toMatchObject({ code: 'NoSuchKey' });
  });
});
