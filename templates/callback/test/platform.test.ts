import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMediaClient } from 'cloudfn/media';
import { createPlatform, mediaClientEnv, type Platform } from 'cloudfn/platform';
import { Logger, createMemorySink, serve, type RunningServer } from 'cloudfn/runtime';
import callback from '../functions/callback.js';

// The whole loop: the emulator uploads a video and calls this function back over HTTP, signed
// with its own key; the function verifies with the public key the emulator publishes.
let platform: Platform;
let server: RunningServer;
let dataDir: string;
const logs = createMemorySink();

beforeAll(async () => {
  server = await serve([{ name: 'callback', handler: callback }], {
    flags: { port: '0', host: '127.0.0.1' },
    env: {},
    logger: new Logger(logs),
    handleSignals: false,
    keepServing: false,
  });
  dataDir = mkdtempSync(join(tmpdir(), 'callback-platform-'));
  platform = await createPlatform({
    port: 0,
    dataDir,
    jobDelayMs: 0,
    ffmpeg: false,
    callbackUrl: `${server.url}/callback`,
    log: () => {},
  });
  Object.assign(process.env, mediaClientEnv(platform));
  process.env.PLATFORM_PUBLIC_KEY = platform.publicKeyPem;
}, 30_000);
afterAll(async () => {
  await platform.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('receives and verifies the signed callback of a finished upload', async () => {
  const [outcome] = await createMediaClient().uploadAndWait(
    [{ source_url: process.env.CLOUDFN_PLATFORM_SAMPLE_URL!, file_name: 'clip' }],
    { pollIntervalMs: 20 },
  );
  if (!outcome?.ok) throw outcome?.error ?? new Error('no upload outcome');
  await platform.idle();
  const received = logs.records.find((r) => r.callback === 'upload.finished');
  expect(received).toMatchObject({ vid: outcome.vid, state: 'success', function: 'callback' });
  const line = logs.records.find((r) => r.function === 'callback' && r.status !== undefined);
  expect(line).toMatchObject({ method: 'POST', path: '/callback', status: 200 });
}, 30_000);
