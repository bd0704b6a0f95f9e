import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaClient } from 'cloudfn/media';
import { createPlatform, mediaClientEnv, type Platform } from 'cloudfn/platform';
import { invoke } from 'cloudfn/testing';

describe('videos', () => {
  it('answers 503 naming the variable to set when the media client is not configured', async () => {
    delete process.env.CLOUDFN_MEDIA_BASE_URL;
    const res = await invoke('functions/videos.ts');
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { message: expect.stringContaining('CLOUDFN_MEDIA_BASE_URL') } });
  });

  describe('against the local emulator of the platform', () => {
    let platform: Platform;
    let dataDir: string;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'starter-platform-'));
      platform = await createPlatform({ port: 0, dataDir, jobDelayMs: 0, ffmpeg: false, log: () => {} });
      // What `cloudfn platform` prints for .env: the function's client reads it.
      Object.assign(process.env, mediaClientEnv(platform));
    }, 30_000);
    afterAll(async () => {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('lists the uploaded videos', async () => {
      const media = createMediaClient();
      const [outcome] = await media.uploadAndWait(
        [{ source_url: process.env.CLOUDFN_PLATFORM_SAMPLE_URL!, file_name: 'first' }],
        { pollIntervalMs: 20 },
      );
      if (!outcome?.ok) throw outcome?.error ?? new Error('no upload outcome');
      const res = await invoke('functions/videos.ts', { query: { page: '0' } });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ total: 1, page: 0, videos: [{ vid: outcome.vid, name: 'first' }] });
    }, 30_000);

    it('refuses a page that is not a whole number', async () => {
      const res = await invoke('functions/videos.ts', { query: { page: 'two' } });
      expect(res.status).toBe(400);
    });
  });
});
