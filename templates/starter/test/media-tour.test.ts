import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPlatform, mediaClientEnv, type Platform } from 'cloudfn/platform';
import { invoke } from 'cloudfn/testing';

let platform: Platform;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'starter-tour-'));
  // Simulated media keeps the test fast; `npm run dev` runs the real ffmpeg jobs.
  platform = await createPlatform({
    port: 0,
    dataDir,
    jobDelayMs: 0,
    transcodeDelayMs: 0,
    ffmpeg: false,
    log: () => {},
  });
  Object.assign(process.env, mediaClientEnv(platform));
}, 30_000);
afterAll(async () => {
  await platform.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('uploads, transcodes and links a video on the emulator', async () => {
  const res = await invoke('functions/media-tour.ts');
  expect(res.status).toBe(200);
  const body = res.json as { vid: string; transcode: { run_status: number }; play: { url: string }[] };
  expect(body.vid).toMatch(/\S/);
  expect(body.transcode.run_status).toBe(10);
  expect(body.play.length).toBeGreaterThan(0);
  expect(body.play[0]!.url).toMatch(/^http:\/\//);
  expect(res.logs.some((line) => line['step'] === 'transcoded')).toBe(true);
}, 60_000);

it('says what to pass when there is no video to upload', async () => {
  delete process.env.CLOUDFN_PLATFORM_SAMPLE_URL;
  const res = await invoke('functions/media-tour.ts');
  expect(res.status).toBe(400);
  expect(res.json).toMatchObject({ error: { message: expect.stringContaining('source_url') } });
});
