/**
 * Real media: an MP4 made by ffmpeg at test time, served by a local file server, uploaded,
 * probed by ffprobe, transcoded by ffmpeg with the three templates, played with Range, and
 * counted in the statistics. Skipped only when ffmpeg is absent (CI installs it).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMediaClient, type MediaClient } from '../../src/media/index.js';
import type { Platform } from '../../src/platform/index.js';
import {
  callbackReceiver,
  fileServer,
  hasFfmpeg,
  makeMp4,
  startPlatform,
  tempDir,
  verifySignedWithOpenssl,
} from './helpers.js';

const reason = 'ffmpeg/ffprobe are not installed (apt-get install ffmpeg); the emulator simulates media without them';

describe.skipIf(!hasFfmpeg)(`real media through ffmpeg${hasFfmpeg ? '' : ` (skipped: ${reason})`}`, () => {
  let tmp: ReturnType<typeof tempDir>;
  let files: Awaited<ReturnType<typeof fileServer>>;
  let callbacks: Awaited<ReturnType<typeof callbackReceiver>>;
  let platform: Platform;
  let media: MediaClient;
  let clip = '';
  let vid = '';

  beforeAll(async () => {
    tmp = tempDir();
    clip = makeMp4(tmp.dir);
    files = await fileServer(tmp.dir);
    callbacks = await callbackReceiver();
    ({ platform } = await startPlatform(join(tmp.dir, 'data'), {
      jobDelayMs: 150,
      transcodeDelayMs: 30,
      callbackUrl: callbacks.url,
      callbackBackoffMs: 10,
    }));
    media = createMediaClient({
      baseUrl: platform.url,
      credentials: { clientKey: 'tt-media', clientSecret: 's' },
      platformPublicKey: platform.publicKeyPem,
      env: {},
      retries: 0,
    });
  });
  afterAll(async () => {
    await platform?.close();
    await files?.close();
    await callbacks?.close();
    tmp?.remove();
  });

  test('the emulator found ffmpeg', () => {
    expect(platform.ffmpeg).toBe(true);
  });

  test('an upload goes init → process → success and ffprobe fills source_info', async () => {
    const submitted = await media.uploadVideoByUrls({
      url_sets: [{ source_url: `${files.url}/clip.mp4`, file_name: 'Test pattern' }],
    });
    const jobId = submitted.data!.url_jobs![0]!.job_id;
    const seen: string[] = [];
    for (;;) {
      const info = await media.getUploadJobInfo({ job_ids: [jobId] });
      const job = info.data!.video_infos![0]!;
      if (seen.at(-1) !== job.state) seen.push(job.state);
      if (job.state === 'success' || job.state === 'fail') {
        vid = job.vid ?? '';
        expect(info.data?.source_info).toEqual(job.source_info);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    expect(seen).toEqual(['init', 'process', 'success']);
    const [video] = (await media.getVideoList({ page_size: 1, page_number: 0 })).data ?? [];
    expect(video).toMatchObject({ vid, source_type: 2, business_status: 99, trans_code_status: 1 });
    const bytes = readFileSync(clip);
    const info = (await media.getUploadJobInfo({ job_ids: [jobId] })).data!.video_infos![0]!.source_info!;
    expect(info).toMatchObject({
      md5: createHash('md5').update(bytes).digest('hex'),
      size: bytes.length,
      width: 320,
      height: 240,
      format: 'mp4',
      file_type: ['video', 'audio'],
    });
    expect(info.duration).toBeGreaterThan(1.9);
    expect(info.duration).toBeLessThan(2.2);
    expect(info.bitrate).toBeGreaterThan(0);
  });

  test('the three templates really transcode: H264 MP4, H265 MP4 and HLS', async () => {
    for (const type of ['3', '4', '5'] as const) {
      const run = await media.transcodeAndWait(vid, type, { pollIntervalMs: 20, timeoutMs: 20_000 });
      expect(run.run_status).toBe(10);
    }
    const links = (await media.getVideoByVid({ vid })).data!;
    expect(links.map((l) => [l.format, l.codec, l.definition, l.is_original])).toEqual([
      ['mp4', 'h264', '240p', false],
      ['mp4', 'h265', '240p', false],
      ['hls', 'h264', '240p', false],
      ['mp4', 'h264', '240p', true],
    ]);
    for (const link of links) {
      expect(link.size).toBeGreaterThan(1000);
      expect(link.bitrate).toBeGreaterThan(10);
    }
    // ffprobe reads the renditions back through their links (asynchronously: the emulator runs in this process).
    const probe = async (url: string, entries: string[]) =>
      (await promisify(execFile)('ffprobe', ['-v', 'error', ...entries, '-of', 'csv=p=0', url])).stdout.trim();
    expect(await probe(links[1]!.main_play_url, ['-select_streams', 'v:0', '-show_entries', 'stream=codec_name'])).toBe(
      'hevc',
    );
    expect(await probe(links[2]!.main_play_url, ['-show_entries', 'format=format_name'])).toBe('hls');
  });

  test('playback with Range, then statistics count plays and traffic', async () => {
    const links = (await media.getVideoByVid({ vid })).data!;
    const mp4 = links[0]!;
    const head = await fetch(mp4.main_play_url, { headers: { range: 'bytes=0-1023' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-1023/${mp4.size}`);
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect((await head.arrayBuffer()).byteLength).toBe(1024);
    const tail = await fetch(mp4.main_play_url, { headers: { range: `bytes=1024-` } });
    expect(tail.status).toBe(206);
    expect((await tail.arrayBuffer()).byteLength).toBe(mp4.size - 1024);
    const original = await fetch(links[3]!.main_play_url);
    expect(Buffer.from(await original.arrayBuffer()).equals(readFileSync(clip))).toBe(true);
    await platform.idle();
    const now = Math.floor(Date.now() / 1000);
    const window = { start_time: now - 600, end_time: now + 60 };
    const top = await media.describeVodPlayedTopData({ env_id: 'env', order_type: 6, ...window });
    // Plays: the 0-1023 request and the original. The ffprobe reads above count too, so only lower bounds are exact here.
    const row = top.play_static_infos[0]!;
    expect(row).toMatchObject({ vid, name: 'Test pattern', size: readFileSync(clip).length });
    expect(row.play_count).toBeGreaterThanOrEqual(2);
    expect(row.traffic).toBeGreaterThanOrEqual(mp4.size + readFileSync(clip).length);
    expect(row.duration).toBeGreaterThan(1.9);
    const totals = await media.getPlayTotals({ vid_list: [vid], order_type: 4, ...window, env_id: 'env' });
    expect(totals.get(vid)).toMatchObject({ play_count: row.play_count, traffic: row.traffic });
  });

  test('callbacks for the upload and each transcode are signed with the platform key', async () => {
    await platform.idle();
    const events = callbacks.received.map((c) => (JSON.parse(c.body) as { event: string }).event);
    expect(events.sort()).toEqual([
      'transcode.finished',
      'transcode.finished',
      'transcode.finished',
      'upload.finished',
    ]);
    for (const callback of callbacks.received) {
      expect(
        verifySignedWithOpenssl(
          platform.publicKeyPath,
          new Headers(callback.headers as Record<string, string>),
          callback.body,
          tmp.dir,
        ),
      ).toBe(true);
    }
  });

  test('a missing file, or one that is not a video, fails its job with a reason', async () => {
    const [outcome] = await media.uploadAndWait([{ source_url: `${files.url}/clip.mp4.txt`, file_name: 'none' }], {
      pollIntervalMs: 20,
    });
    expect(outcome?.ok).toBe(false);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(tmp.dir, 'fake.mp4'), 'ftyp but really just text');
    const submitted = await media.uploadVideoByUrls({
      url_sets: [{ source_url: `${files.url}/fake.mp4`, file_name: 'fake' }],
    });
    await platform.idle();
    const job = (await media.getUploadJobInfo({ job_ids: [submitted.data!.url_jobs![0]!.job_id] })).data!
      .video_infos![0]! as { state: string; fail_reason?: string };
    expect(job.state).toBe('fail');
    expect(job.fail_reason).toMatch(/^not a video: ffprobe cannot read the file/);
  });
});

describe.skipIf(!hasFfmpeg)(`the sample video${hasFfmpeg ? '' : ` (skipped: ${reason})`}`, () => {
  test('is made by ffmpeg on first request and uploads as a real 640x360 video', async () => {
    const tmp = tempDir();
    const { platform } = await startPlatform(join(tmp.dir, 'data'));
    try {
      const { mediaClientEnv } = await import('../../src/platform/index.js');
      const env = mediaClientEnv(platform);
      const client = createMediaClient({ env, retries: 0 });
      const [outcome] = await client.uploadAndWait(
        [{ source_url: env['CLOUDFN_PLATFORM_SAMPLE_URL']!, file_name: 'sample' }],
        { pollIntervalMs: 20 },
      );
      expect(outcome).toMatchObject({
        ok: true,
        source_info: { width: 640, height: 360, format: 'mp4', file_type: ['video', 'audio'] },
      });
    } finally {
      await platform.close();
      tmp.remove();
    }
  });
});
