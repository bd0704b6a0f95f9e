/**
 * Issue 54's "Done means" under the built `cloudfn dev`: a function written as the platform's
 * TOS sample (the endpoint `tos-cn-beijing.volces.com`, the keys from `TOS_ACCESS_KEY` and
 * `TOS_SECRET_KEY`, a client made at the module's top level) runs unchanged: it puts an object,
 * heads it, lists it and mints a presigned GET URL that curl downloads byte for byte through the
 * dev route (and Chromium opens), then deletes it. With the secret changed the SDK throws `SignatureDoesNotMatch`.
 * Then: a presigned PUT and GET through curl, an expired URL refused, the data and a URL minted
 * before a restart still there after it, and a large multipart upload with the dev server's
 * peak RSS bounded.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium } from '../testing/browser.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { tempProject } from '../testing/project.js';
import { until } from '../testing/until.js';

const CLI = `${REPO}/dist/src/cli/index.js`;
/** The size of the large upload: 1 GiB unless CLOUDFN_TOS_BIG_MIB says otherwise. */
const BIG_MIB = Number(process.env['CLOUDFN_TOS_BIG_MIB'] ?? 1024);

/** The platform's sample, as its docs write it; the bucket is the one the code names. */
const SAMPLE = `import { TosClient } from '@volcengine/tos-sdk';

const client = new TosClient({
  accessKeyId: process.env.TOS_ACCESS_KEY,
  accessKeySecret: process.env.TOS_SECRET_KEY,
  region: 'cn-beijing',
  endpoint: 'tos-cn-beijing.volces.com',
});
const bucket = 'short-drama-media';

export default async function sample(params: { key: string; text: string }) {
  const body = Buffer.from(params.text);
  const put = await client.putObject({ bucket, key: params.key, body, contentType: 'text/plain' });
  const head = await client.headObject({ bucket, key: params.key });
  const list = await client.listObjectsType2({ bucket, prefix: params.key });
  const url = client.getPreSignedUrl({ bucket, key: params.key, method: 'GET', expires: 3600 });
  return {
    etag: put.headers.etag,
    size: Number(head.data['content-length']),
    listed: list.data.Contents.map((item) => item.Key),
    url,
  };
}
`;

const REMOVE = `import { TosClient } from '@volcengine/tos-sdk';

const client = new TosClient({
  accessKeyId: process.env.TOS_ACCESS_KEY,
  accessKeySecret: process.env.TOS_SECRET_KEY,
  region: 'cn-beijing',
  endpoint: 'tos-cn-beijing.volces.com',
});

export default async function remove(params: { key: string }) {
  await client.deleteObject({ bucket: 'short-drama-media', key: params.key });
  const list = await client.listObjectsType2({ bucket: 'short-drama-media', prefix: params.key });
  return { left: list.data.Contents.length };
}
`;

/** The sample with the secret changed: what the SDK throws, caught to be shown. */
const WRONG_SECRET = `import { TosClient, TosServerError } from '@volcengine/tos-sdk';

const client = new TosClient({
  accessKeyId: process.env.TOS_ACCESS_KEY,
  accessKeySecret: 'a-changed-secret',
  region: 'cn-beijing',
  endpoint: 'tos-cn-beijing.volces.com',
});

export default async function wrongSecret() {
  try {
    await client.putObject({ bucket: 'short-drama-media', key: 'never.txt', body: Buffer.from('x') });
    return { thrown: false };
  } catch (error) {
    return { serverError: error instanceof TosServerError, code: error.code, status: error.statusCode };
  }
}
`;

/** Presigned URLs for curl: a PUT and a GET of one key, and a GET that expires in 1 s. */
const PRESIGN = `import { TosClient } from '@volcengine/tos-sdk';

const client = new TosClient({
  accessKeyId: process.env.TOS_ACCESS_KEY,
  accessKeySecret: process.env.TOS_SECRET_KEY,
  region: process.env.TOS_REGION,
  endpoint: process.env.TOS_ENDPOINT,
});

export default async function presign(params: { key: string; expires?: string }) {
  const expires = Number(params.expires ?? 600);
  return {
    put: client.getPreSignedUrl({ bucket: process.env.TOS_BUCKET, key: params.key, method: 'PUT', expires }),
    get: client.getPreSignedUrl({ bucket: process.env.TOS_BUCKET, key: params.key, method: 'GET', expires }),
  };
}
`;

/** A multipart upload of MIB MiB in 8 MiB parts made from one buffer, with the process's peak RSS before and after. */
const BIG = `import { readFileSync } from 'node:fs';
import { TosClient } from '@volcengine/tos-sdk';

const client = new TosClient({
  accessKeyId: process.env.TOS_ACCESS_KEY,
  accessKeySecret: process.env.TOS_SECRET_KEY,
  region: 'cn-beijing',
  endpoint: 'tos-cn-beijing.ivolces.com',
  requestTimeout: 600000,
});
const peakKiB = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);

export default async function big(params: { mib: string }) {
  const part = Buffer.alloc(8 * 1024 * 1024, 7);
  const parts = Math.ceil(Number(params.mib) / 8);
  const before = peakKiB();
  const started = Date.now();
  const { data } = await client.createMultipartUpload({ bucket: process.env.TOS_BUCKET, key: 'big.bin' });
  const done = [];
  for (let n = 1; n <= parts; n++) {
    const answer = await client.uploadPart({ bucket: process.env.TOS_BUCKET, key: 'big.bin', uploadId: data.UploadId, partNumber: n, body: part });
    done.push({ eTag: answer.data.ETag, partNumber: n });
  }
  const uploadedMs = Date.now() - started;
  await client.completeMultipartUpload({ bucket: process.env.TOS_BUCKET, key: 'big.bin', uploadId: data.UploadId, parts: done });
  const head = await client.headObject({ bucket: process.env.TOS_BUCKET, key: 'big.bin' });
  return { size: Number(head.data['content-length']), beforeKiB: before, afterKiB: peakKiB(), uploadedMs, totalMs: Date.now() - started };
}
`;

const project = tempProject({
  'cloudfn.config.json': JSON.stringify({ components: { tos: true } }),
  'functions/sample.ts': SAMPLE,
  'functions/remove.ts': REMOVE,
  'functions/wrong-secret.ts': WRONG_SECRET,
  'functions/presign.ts': PRESIGN,
  'functions/big.ts': BIG,
});
// The functions import the SDK from the repository's node_modules.
symlinkSync(join(REPO, 'node_modules'), join(project.root, 'node_modules'));
const running: ChildProcess[] = [];

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  for (const child of running) await stop(child);
  project.remove();
});

/** `cloudfn dev` as a user types it; resolves with its URL once it listens. */
async function dev(): Promise<{ child: ChildProcess; base: string; output: () => string }> {
  ensureDist();
  const child = spawn(process.execPath, [CLI, 'dev', '--port', '0', '--no-typecheck'], {
    cwd: project.root,
    env: { ...process.env, NO_COLOR: '1', PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const base = await until(
    () => /dev server on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1],
    60_000,
    () => `dev to listen:\n${text}`,
  );
  return { child, base, output: () => text };
}

async function call<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${body}`);
  return JSON.parse(body) as T;
}

/** The dev route's twin of a presigned URL: its https:// replaced by the dev server's route. */
const local = (url: string, base: string) => `${base}/_cloudfn/tos/${url.replace(/^https:\/\//, '')}`;

function curl(args: string[]): { status: number; body: Buffer } {
  const out = execFileSync('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const at = out.lastIndexOf(10);
  return { status: Number(out.subarray(at + 1).toString()), body: out.subarray(0, at) };
}

describe('the platform TOS sample under cloudfn dev', { timeout: 600_000 }, () => {
  let server: Awaited<ReturnType<typeof dev>>;
  const text = `hello from the short-drama app ${randomBytes(8).toString('hex')}\n`;
  let minted = '';

  it('puts, heads, lists, mints a URL that curl downloads byte for byte, and deletes', async () => {
    server = await dev();
    const { base } = server;
    const key = 'episodes/1/cover.txt';
    const answer = await call<{ etag: string; size: number; listed: string[]; url: string }>(
      base,
      `/sample?key=${encodeURIComponent(key)}&text=${encodeURIComponent(text)}`,
    );
    console.log('sample:', JSON.stringify(answer));
    expect(answer.etag).toBe(`"${createHash('md5').update(text).digest('hex')}"`);
    expect(answer.size).toBe(Buffer.byteLength(text));
    expect(answer.listed).toEqual([key]);
    // The platform's URL, as production mints it.
    expect(answer.url).toMatch(
      /^https:\/\/short-drama-media\.tos-cn-beijing\.volces\.com\/episodes\/1\/cover\.txt\?X-Tos-Algorithm=TOS4-HMAC-SHA256&/,
    );
    const downloaded = curl([local(answer.url, base)]);
    console.log(`curl ${local(answer.url, base)} -> ${downloaded.status}, ${downloaded.body.length} bytes`);
    expect(downloaded.status).toBe(200);
    expect(downloaded.body.equals(Buffer.from(text))).toBe(true);
    // The same request with the platform's host in Host, as the intranet hook sends it.
    const byHost = curl([
      '-H',
      'Host: short-drama-media.tos-cn-beijing.volces.com',
      answer.url.replace(/^https:\/\/[^/]+/, base),
    ]);
    expect(byHost.body.equals(Buffer.from(text))).toBe(true);

    if (HAS_CHROMIUM) {
      // And in a browser: the page shows the object's text.
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const opened = await page.goto(local(answer.url, base));
        expect(opened?.status()).toBe(200);
        expect((await page.evaluate(() => document.body.innerText)).trim()).toBe(text.trim());
      } finally {
        await browser.close();
      }
    }

    const removed = await call<{ left: number }>(base, `/remove?key=${encodeURIComponent(key)}`);
    expect(removed.left).toBe(0);
    const gone = curl([local(answer.url, base)]);
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body.toString()).Code).toBe('NoSuchKey');
    expect(server.output()).toContain('local TOS on tos-cn-beijing.volces.com');
    expect(server.output()).toContain('made the bucket "short-drama-media" on its first write');
  });

  it('with the secret changed, the SDK throws SignatureDoesNotMatch, and the dev log says what it signed', async () => {
    const answer = await call<{ serverError: boolean; code: string; status: number }>(server.base, '/wrong-secret');
    console.log('wrong secret:', JSON.stringify(answer));
    expect(answer).toEqual({ serverError: true, code: 'SignatureDoesNotMatch', status: 403 });
    // The dev server's log line comes through its stdout pipe, which may trail the answer.
    await expect
      .poll(() => server.output(), { timeout: 10_000 })
      .toMatch(
        /local TOS refused PUT short-drama-media\.tos-cn-beijing\.volces\.com\/never\.txt: SignatureDoesNotMatch/,
      );
    expect(server.output()).toContain('of this canonical request:');
  });

  it('takes a presigned PUT and GET through curl, and refuses an expired URL and a changed one', async () => {
    const { base } = server;
    const bytes = randomBytes(100_000);
    const file = join(project.root, 'upload.bin');
    writeFileSync(file, bytes);
    const urls = await call<{ put: string; get: string }>(base, '/presign?key=uploads%2Fclip.bin');
    const put = curl([
      '-X',
      'PUT',
      '--data-binary',
      `@${file}`,
      '-H',
      'Content-Type: application/octet-stream',
      local(urls.put, base),
    ]);
    expect(put.status).toBe(200);
    const got = curl([local(urls.get, base)]);
    expect(got.status).toBe(200);
    expect(got.body.equals(bytes)).toBe(true);
    minted = urls.get;

    const changed = curl([local(urls.get.replace('clip.bin', 'other.bin'), base)]);
    expect(changed.status).toBe(403);
    expect(JSON.parse(changed.body.toString()).Code).toBe('SignatureDoesNotMatch');

    const short = await call<{ get: string }>(base, '/presign?key=uploads%2Fclip.bin&expires=1');
    // Signed to the second: two and a half seconds are past any rounding.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const expired = curl([local(short.get, base)]);
    expect(expired.status).toBe(403);
    const body = JSON.parse(expired.body.toString()) as { Code: string; Message: string };
    expect(body.Code).toBe('AccessDenied');
    expect(body.Message).toContain('Request has expired');
  });

  it('keeps the data, and a URL minted before, across a restart', async () => {
    await stop(server.child);
    server = await dev();
    const got = curl([local(minted, server.base)]);
    expect(got.status).toBe(200);
    expect(got.body.length).toBe(100_000);
    expect(existsSync(join(project.root, '.cloudfn', 'storage', 'buckets', 'cloudfn-dev', 'bucket.json'))).toBe(true);
  });

  it(`uploads ${BIG_MIB} MiB in parts with the dev server's peak RSS bounded`, async () => {
    const answer = await call<{
      size: number;
      beforeKiB: number;
      afterKiB: number;
      uploadedMs: number;
      totalMs: number;
    }>(server.base, `/big?mib=${BIG_MIB}`);
    const grewMiB = (answer.afterKiB - answer.beforeKiB) / 1024;
    console.log(
      `multipart ${BIG_MIB} MiB: parts sent in ${answer.uploadedMs} ms, completed in ${answer.totalMs} ms; peak RSS ${Math.round(answer.beforeKiB / 1024)} MiB before, ${Math.round(answer.afterKiB / 1024)} MiB after (+${grewMiB.toFixed(1)} MiB)`,
    );
    expect(answer.size).toBe(Math.ceil(BIG_MIB / 8) * 8 * 1024 * 1024);
    // Flat: a few parts in flight at most, never the object (the bound is a tenth of it, at least 160 MiB).
    expect(grewMiB).toBeLessThan(Math.max(160, BIG_MIB / 10));
    const stored = join(project.root, '.cloudfn', 'storage', 'buckets', 'cloudfn-dev', 'objects');
    expect(
      readFileSync(join(project.root, '.cloudfn', 'storage', 'buckets', 'cloudfn-dev', 'bucket.json'), 'utf8'),
    ).toContain('created');
    expect(existsSync(stored)).toBe(true);
  });
});
