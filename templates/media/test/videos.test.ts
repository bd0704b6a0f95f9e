import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaClient } from 'cloudfn/media';
import { createPlatform, mediaClientEnv, type Platform } from 'cloudfn/platform';
import { invoke } from 'cloudfn/testing';

type Job = { job: string; state: string; vid: string | null };

describe('without CLOUDFN_MEDIA_* set', () => {
  it('answers 503 naming the variable to set', async () => {
    delete process.env.CLOUDFN_MEDIA_BASE_URL;
    const res = await invoke('functions/videos/list.ts');
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { message: expect.stringContaining('CLOUDFN_MEDIA_BASE_URL') } });
  });
});

describe('against the local emulator of the platform', () => {
  let platform: Platform;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'media-platform-'));
    platform = await createPlatform({
      port: 0,
      dataDir,
      jobDelayMs: 0,
      transcodeDelayMs: 0,
      ffmpeg: false,
      log: () => {},
    });
    // The variables `npx cloudfn platform` prints for .env.
    Object.assign(process.env, mediaClientEnv(platform));
  }, 30_000);
  afterAll(async () => {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uploads by URL, follows the job, lists the video and plays it once transcoded', async () => {
    const started = await invoke<{ job: string; poll: string }>('functions/videos/upload.ts', {
      body: { url: process.env.CLOUDFN_PLATFORM_SAMPLE_URL, name: 'sample' },
    });
    expect(started.status).toBe(202);
    expect(started.json?.poll).toBe(`/videos/job?id=${started.json?.job}`);

    let job: Job | undefined;
    for (let i = 0; i < 100 && job?.state !== 'success'; i++) {
      job = (await invoke<Job>('functions/videos/job.ts', { path: started.json!.poll })).json;
      if (job?.state === 'fail') throw new Error('the upload failed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(job).toMatchObject({ state: 'success', vid: expect.any(String) });
    const vid = job!.vid!;

    const list = await invoke('functions/videos/list.ts', { query: { page: 0, size: 10 } });
    expect(list.json).toMatchObject({ total: 1, videos: [{ vid, name: 'sample' }] });

    // The test transcodes with its own client, as an operator would.
    await createMediaClient().transcodeAndWait(vid, '3', { pollIntervalMs: 20 });
    const play = await invoke<{ links: { url: string }[] }>('functions/videos/play.ts', { query: { vid } });
    expect(play.status).toBe(200);
    expect(play.json?.links[0]?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  }, 30_000);

  it('answers 404 for a video that does not exist', async () => {
    const res = await invoke('functions/videos/play.ts', { query: { vid: 'v0200f0000000000000000000' } });
    expect(res.status).toBe(404);
  });

  it('answers 400 for bad input before calling the platform', async () => {
    expect((await invoke('functions/videos/upload.ts', { body: { url: 'ftp://x/y.mp4' } })).status).toBe(400);
    const list = await invoke('functions/videos/list.ts', { query: { size: 50 } });
    expect(list.status).toBe(400);
    expect(list.json).toMatchObject({ error: { code: 'CLOUDFN_BAD_PARAMS', issues: [{ path: '/size' }] } });
    expect((await invoke('functions/videos/job.ts')).status).toBe(400);
    expect((await invoke('functions/videos/play.ts')).status).toBe(400);
  });
});
