/**
 * Every template of `cloudfn init` built with `--target function-service` and run under a
 * real Node 14 through the imitation of the platform's invocation: each file loads and answers
 * the check's call, and the templates' own flows work there (a greeting, a multipart upload, a
 * signed media call to `cloudfn platform`, a signed callback).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFunctionService,
  checkFunctionService,
  findCheckNode,
  type FunctionServiceBuildResult,
  ImitationRunner,
} from '../../src/build/function-service/index.js';
import { startDevPlatform } from '../../src/dev/with-platform.js';
import { generateKeyPair, signCallback } from '../../src/sign/index.js';

const templatesDir = join(import.meta.dirname, '..', '..', 'templates');
const templates = readdirSync(templatesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const node = findCheckNode(process.cwd());
if (!node.platformVersion && process.env.CI === 'true')
  throw new Error('Node 14 is missing under CI: run node test/setup/node14.mjs');

const out = mkdtempSync(join(tmpdir(), 'cloudfn-fs-templates-'));
const built = new Map<string, FunctionServiceBuildResult>();
const runner = new ImitationRunner(node);

beforeAll(async () => {
  for (const name of templates)
    built.set(name, await buildFunctionService(join(templatesDir, name), { outdir: join(out, name) }));
}, 120_000);
afterAll(() => {
  runner.close();
  rmSync(out, { recursive: true, force: true });
});

const fileOf = (template: string, path: string): string => join(built.get(template)!.outdir, path);

describe.skipIf(!node.platformVersion)('templates on the function service, under Node 14', () => {
  it.each(templates)('%s: every file loads and answers the check', async (name) => {
    // live-room imports the server SDK: the check lends the stand-in, as cloudfn build --check does.
    const { checks } = await checkFunctionService(join(templatesDir, name), built.get(name)!.files, {
      sdkImporters: built.get(name)!.sdkImporters,
    });
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => !check.ok)).toEqual([]);
  });

  it('starter: hello greets from a query', async () => {
    const answer = (await runner.run(fileOf('starter', 'hello.js'), [{ method: 'GET', url: '/hello?name=Ada' }]))
      .answers![0]!;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ hello: 'Ada', trigger: 'online' });
    expect(answer.logs).toEqual([{ level: 'log', values: [{ greeted: 'Ada' }] }]);
  });

  it('starter: upload reads a multipart file', async () => {
    const boundary = 'cloudfnboundary';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="note"',
      '',
      'hi',
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="a.txt"',
      'Content-Type: text/plain',
      '',
      'hello',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const answer = (
      await runner.run(fileOf('starter', 'upload.js'), [
        {
          method: 'POST',
          url: '/upload',
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
          body,
        },
      ])
    ).answers![0]!;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      name: 'a.txt',
      type: 'text/plain',
      size: 5,
      sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      fields: { note: 'hi' },
    });
  });

  it('media: videos/list makes a signed, verified call to cloudfn platform', async () => {
    const dev = await startDevPlatform(join(out, 'media-platform'), { port: 0, log: () => {} });
    try {
      const answer = (
        await runner.run(fileOf('media', 'videos/list.js'), [{ method: 'GET', url: '/videos/list?page=0' }], {
          env: { ...process.env, ...dev.env },
        })
      ).answers![0]!;
      expect(answer.thrown).toBeUndefined();
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ total: 0, videos: [] });
    } finally {
      await dev.close();
    }
  }, 30_000);

  it('callback: verifies a signed callback and refuses a tampered one', async () => {
    const pair = generateKeyPair();
    const body = JSON.stringify({ event: 'upload.finished', app_id: 'tt1', create_time: 1, data: { vid: 'v1' } });
    const headers = { 'content-type': 'application/json', ...signCallback({ privateKey: pair.privateKeyPem, body }) };
    const env = { ...process.env, PLATFORM_PUBLIC_KEY: pair.publicKeyPem };
    const file = fileOf('callback', 'callback.js');
    const ok = (await runner.run(file, [{ method: 'POST', url: '/callback', headers, body }], { env })).answers![0]!;
    expect(ok.thrown).toBeUndefined();
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ received: 'upload.finished' });
    const tampered = body.replace('v1', 'v2');
    const refused = (await runner.run(file, [{ method: 'POST', url: '/callback', headers, body: tampered }], { env }))
      .answers![0]!;
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).error.code).toMatch(/^SIGN_/);
  });
});
