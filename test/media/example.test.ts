/**
 * Runs the example function of docs/media.md, as written there, against the stand-in platform
 * with the client configured only by CLOUDFN_MEDIA_* env vars.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../src/index.js';
import { makeKeys, MediaServer, sampleResponder } from './media-server.js';
import type { Keys } from './media-server.js';

const root = new URL('../../', import.meta.url);
const docs = readFileSync(new URL('docs/media.md', root), 'utf8');
const block = /<!-- example:begin -->\s*```ts\n([\s\S]*?)```\s*<!-- example:end -->/.exec(docs)?.[1];

let keys: Keys;
let server: MediaServer;
let handler: (params: { vid?: string }, service: unknown) => Promise<unknown>;
const file = new URL(`test/media/.example-${process.pid}.ts`, root);
const saved = { ...process.env };

beforeAll(async () => {
  keys = makeKeys();
  server = await new MediaServer(keys).start();
  Object.assign(process.env, {
    CLOUDFN_MEDIA_BASE_URL: server.url,
    CLOUDFN_MEDIA_ACCESS_TOKEN: 'tok-example',
    CLOUDFN_MEDIA_APPID: 'tt-example',
    CLOUDFN_MEDIA_KEY_VERSION: '7',
    CLOUDFN_MEDIA_PRIVATE_KEY: keys.appPrivatePem.replace(/\n/g, '\\n'),
    CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY: keys.platformPublicPem,
  });
  expect(block).toBeDefined();
  const source = block!
    .replace(/from 'cloudfn\/media'/g, "from '../../src/media/index.js'")
    .replace(/from 'cloudfn'/g, "from '../../src/index.js'");
  writeFileSync(file, source);
  handler = ((await import(/* @vite-ignore */ file.href)) as { default: typeof handler }).default;
});

afterAll(async () => {
  rmSync(file, { force: true });
  for (const key of Object.keys(process.env))
    if (key.startsWith('CLOUDFN_MEDIA_') && !(key in saved)) delete process.env[key];
  await server.close();
});

function service() {
  const lines: unknown[] = [];
  const log = (...values: unknown[]) => lines.push(...values);
  return {
    lines,
    service: {
      logid: 'fn-logid',
      signal: new AbortController().signal,
      log,
      info: log,
      warn: log,
      error: log,
      debug: log,
    },
  };
}

describe('the example function of docs/media.md', () => {
  it('lists the videos and starts an HLS transcode of the first one not transcoded', async () => {
    server.received.length = 0;
    server.responder = sampleResponder;
    const { lines, service: s } = service();
    const result = await handler({}, s);
    expect(result).toEqual({ started: { vid: 'v0d00fg10000bbbb', run_id: 'run-1' }, waiting: 1 });
    expect(server.received.map((r) => r.path)).toEqual([
      '/api/cloud_voc/get_video_list',
      '/api/cloud_voc/start_work_flow',
    ]);
    expect(server.received[1]!.json).toEqual({ vid: 'v0d00fg10000bbbb', trans_code_type: '5' });
    expect(server.received.every((r) => r.headers['access-token'] === 'tok-example')).toBe(true);
    expect(server.received.every((r) => r.verified !== undefined && !(r.verified instanceof Error))).toBe(true);
    expect(lines).toContainEqual(expect.objectContaining({ media: 'start_work_flow', log_id: '20240101120000FLOW' }));
    expect(lines).toContainEqual({
      started: 'v0d00fg10000bbbb',
      run_id: 'run-1',
      platform_log_id: '20240101120000FLOW',
    });
  });

  it('answers 404 when the platform says the video does not exist', async () => {
    server.responder = (req) =>
      req.path.endsWith('start_work_flow')
        ? { body: { err_no: 401003, err_msg: 'video not exist', log_id: 'L' } }
        : sampleResponder(req);
    const error = await handler({ vid: 'gone' }, service().service).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(404);
  });
});
