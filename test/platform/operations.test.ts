/**
 * Every operation of the media API through `cloudfn/media` against the emulator over a socket.
 * Media is simulated here (ffmpeg: false) so this file runs with or without ffmpeg; the real
 * ffmpeg path is in media.test.ts.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMediaClient, MediaApiError, type MediaClient } from '../../src/media/index.js';
import type { Platform } from '../../src/platform/index.js';
import {
  callbackReceiver,
  fileServer,
  post,
  startPlatform,
  tempDir,
  until,
  verifySignedWithOpenssl,
} from './helpers.js';

/** Bytes that start like an MP4 (an `ftyp` box), enough for the emulator without ffprobe. */
function fakeMp4(size: number): Buffer {
  const head = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom')]);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 7)]);
}

let tmp: ReturnType<typeof tempDir>;
let files: Awaited<ReturnType<typeof fileServer>>;
let callbacks: Awaited<ReturnType<typeof callbackReceiver>>;
let platform: Platform;
let media: MediaClient;
let clockOffset = 0;
const source = fakeMp4(4000);

beforeAll(async () => {
  tmp = tempDir();
  writeFileSync(join(tmp.dir, 'ep1.mp4'), source);
  writeFileSync(join(tmp.dir, 'notes.txt'), 'this is text, not a video');
  writeFileSync(join(tmp.dir, 'big.mp4'), fakeMp4(20_000));
  files = await fileServer(tmp.dir);
  callbacks = await callbackReceiver(2);
  ({ platform } = await startPlatform(join(tmp.dir, 'data'), {
    ffmpeg: false,
    maxSourceBytes: 10_000,
    reviewDelayMs: 60_000,
    envIds: ['env-1'],
    callbackUrl: callbacks.url,
    callbackBackoffMs: 10,
    now: () => Date.now() + clockOffset,
  }));
  media = createMediaClient({
    baseUrl: platform.url,
    credentials: { clientKey: 'tt-app-1', clientSecret: 'any' },
    platformPublicKey: platform.publicKeyPem,
    // The tests move the emulator's clock hours ahead; responses would fail the 300 s age check.
    responseMaxAgeSeconds: false,
    envId: 'env-1',
    retries: 0,
    env: {},
  });
});
afterAll(async () => {
  await platform.close();
  await files.close();
  await callbacks.close();
  tmp.remove();
});

const wait = { pollIntervalMs: 20, timeoutMs: 10_000 };

describe('every operation through the media client', () => {
  let vid = '';
  let playlistBytes = 0;

  test('upload_video_by_urls and get_upload_job_info: success and the three kinds of failure', async () => {
    const outcomes = await media.uploadAndWait(
      [
        { source_url: `${files.url}/ep1.mp4`, file_name: 'Episode 1' },
        { source_url: `${files.url}/missing.mp4`, file_name: 'missing' },
        { source_url: `${files.url}/notes.txt`, file_name: 'notes' },
        { source_url: `${files.url}/big.mp4`, file_name: 'big' },
      ],
      wait,
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, false, false]);
    const ok = outcomes[0]!;
    if (!ok.ok) throw ok.error;
    vid = ok.vid;
    expect(ok.source_info).toMatchObject({
      md5: createHash('md5').update(source).digest('hex'),
      size: 4000,
      format: 'mp4',
      file_type: ['video'],
    });
    const ids = outcomes.map((o) => o.job_id!);
    const info = await media.getUploadJobInfo({ job_ids: [...ids, 'job-unknown'] });
    expect(info.data?.not_exist_job_ids).toEqual(['job-unknown']);
    const reasons = (info.data?.video_infos ?? []).map((j) => [
      j.state,
      (j as { fail_reason?: string }).fail_reason ?? '',
    ]);
    expect(reasons[0]).toEqual(['success', '']);
    expect(reasons[1]![1]).toMatch(/^download failed: HTTP 404/);
    expect(reasons[2]![1]).toMatch(/^not a video/);
    expect(reasons[3]![1]).toMatch(/^file too large: 20000 bytes, the limit is 10000/);
  });

  test('get_video_list: the new video, its states, filters and paging', async () => {
    const list = await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(list.total_num).toBe(1);
    expect(list.data?.[0]).toMatchObject({
      vid,
      video_name: 'Episode 1',
      size: 4000,
      source_type: 2,
      business_status: 99,
      trans_code_status: 1,
    });
    expect((await media.getVideoList({ page_size: 20, page_number: 0, video_name: 'Episode' })).total_num).toBe(1);
    expect((await media.getVideoList({ page_size: 20, page_number: 0, video_name: 'nothing' })).total_num).toBe(0);
    expect((await media.getVideoList({ page_size: 20, page_number: 1 })).data).toEqual([]);
    // The review delay (60 s, passed by moving the emulator's clock) moves business_status from 99 to 98.
    expect((await media.getVideoList({ page_size: 1, page_number: 0, business_status: 98 })).total_num).toBe(0);
    clockOffset = 61_000;
    try {
      expect((await media.getVideoList({ page_size: 1, page_number: 0, business_status: 98 })).total_num).toBe(1);
      expect((await media.getVideoList({ page_size: 1, page_number: 0, business_status: 99 })).total_num).toBe(0);
    } finally {
      clockOffset = 0;
    }
  });

  test('start_work_flow and get_work_flow_exection: 1 → 2 → 10, the video follows', async () => {
    const done = await media.transcodeAndWait(vid, '5', wait);
    expect(done).toMatchObject({ run_status: 10, run_status_msg: 'success' });
    expect(await media.getWorkFlowExecution({ run_id: done.run_id })).toMatchObject({
      err_no: 0,
      run_status: 10,
      run_status_msg: 'success',
    });
    const mp4 = await media.transcodeAndWait(vid, undefined, wait);
    expect(mp4.run_status).toBe(10);
    const [video] = (await media.getVideoList({ page_size: 1, page_number: 0 })).data ?? [];
    expect(video?.trans_code_status).toBe(4);
  });

  test('get_video_by_vid: links to every rendition and the original, honouring domain and expire_time', async () => {
    const links = await media.getVideoByVid({ vid, expire_time: 7200 });
    expect(links.data?.map((l) => [l.format, l.codec, l.is_original])).toEqual([
      ['mp4', 'h264', false],
      ['hls', 'h264', false],
      ['mp4', '', true],
    ]);
    const original = links.data![2]!;
    const now = Math.floor((Date.now() + clockOffset) / 1000);
    expect(Number(original.main_url_expire)).toBeGreaterThanOrEqual(now + 7199);
    expect(original.main_play_url.startsWith(platform.url + '/media/')).toBe(true);
    expect(original.back_up_play_url.startsWith(`http://localhost:${platform.port}/media/`)).toBe(true);
    const full = await fetch(original.main_play_url);
    expect(full.status).toBe(200);
    expect(Buffer.from(await full.arrayBuffer()).equals(source)).toBe(true);
    const ranged = await fetch(original.main_play_url, { headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 100-199/4000');
    expect(Buffer.from(await ranged.arrayBuffer()).equals(source.subarray(100, 200))).toBe(true);
    const beyond = await fetch(original.main_play_url, { headers: { range: 'bytes=4000-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */4000');
    const hls = await fetch(links.data![1]!.main_play_url);
    const playlist = await hls.text();
    playlistBytes = Buffer.byteLength(playlist);
    expect(playlist).toContain('#EXTM3U');
    const segment = await fetch(new URL('seg_000.ts', links.data![1]!.main_play_url));
    expect(segment.status).toBe(200);

    const local = await media.getVideoByVid({ vid, domain: `localhost:${platform.port}` });
    expect(local.data![0]!.main_play_url.startsWith(`http://localhost:${platform.port}/`)).toBe(true);
    await expect(media.getVideoByVid({ vid, domain: 'cdn.example.com' })).rejects.toMatchObject({
      errNo: 40001,
      status: 400,
    });
  });

  test('describe_vod_played_top_data and describe_vod_played_static_data count the plays above', async () => {
    await until(() => (platform.context.store.state.plays.length > 0 ? true : undefined));
    const now = Math.floor((Date.now() + clockOffset) / 1000);
    const range = { start_time: now - 3600, end_time: now + 60 };
    const top = await media.describeVodPlayedTopData({ order_type: 5, ...range });
    expect(top.play_static_infos).toHaveLength(1);
    // Plays: the full GET of the original and the HLS playlist; the Range GET from 100 and the segment add traffic only.
    // Traffic: the original (4000), the range (100), the playlist and its one segment (a 4000-byte copy when simulated).
    expect(top.play_static_infos[0]).toMatchObject({
      vid,
      app_id: '',
      name: 'Episode 1',
      size: 4000,
      play_count: 2,
      traffic: 4000 + 100 + playlistBytes + 4000,
    });
    expect(top.play_static_infos[0]!.create_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const split = await media.describeVodPlayedStaticData({
      vid_list: [vid],
      app_id_list: ['tt-app-1', 'tt-other'],
      order_type: 2,
      ...range,
    });
    expect(split.play_static_infos.map((r) => [r.app_id, r.play_count])).toEqual([
      ['tt-app-1', 2],
      ['tt-other', 0],
    ]);
    const past = await media.describeVodPlayedStaticData({
      vid_list: [vid],
      order_type: 1,
      start_time: now - 7200,
      end_time: now - 3600,
    });
    expect(past.play_static_infos[0]).toMatchObject({ play_count: 0, traffic: 0 });
  });

  test('signed callbacks announce each upload and transcode end, retried after failures', async () => {
    await platform.idle();
    const bodies = callbacks.received.map(
      (c) => JSON.parse(c.body) as { event: string; data: Record<string, unknown> },
    );
    // The receiver refused the first two attempts; those events were delivered by a retry.
    const attempts = platform.context.callbacks.attempts;
    expect(attempts.filter((a) => !a.ok).map((a) => a.status)).toEqual([500, 500]);
    expect(attempts.filter((a) => a.ok && a.attempt > 1).length).toBeGreaterThanOrEqual(1);
    expect(bodies).toHaveLength(attempts.length);
    const delivered = attempts.filter((a) => a.ok);
    expect(delivered.map((a) => a.event).sort()).toEqual([
      'transcode.finished',
      'transcode.finished',
      ...Array(4).fill('upload.finished'),
    ]);
    const success = bodies.find((b) => b.event === 'upload.finished' && b.data['state'] === 'success');
    expect(success?.data).toMatchObject({ vid, state: 'success' });
    for (const callback of callbacks.received) {
      const headers = new Headers(callback.headers as Record<string, string>);
      expect(headers.get('x-platform-logid')).toMatch(/^\d{14}/);
      expect(verifySignedWithOpenssl(platform.publicKeyPath, headers, callback.body, tmp.dir)).toBe(true);
    }
  });

  test('a link past its expiry answers 403', async () => {
    const links = await media.getVideoByVid({ vid });
    clockOffset = 3601 * 1000;
    try {
      const expired = await fetch(links.data![0]!.main_play_url);
      expect(expired.status).toBe(403);
      expect(expired.headers.get('x-platform-logid')).toMatch(/^\d{14}[0-9A-F]{18}$/);
      expect(await expired.json()).toMatchObject({ err_no: 40300 });
    } finally {
      clockOffset = 0;
    }
  });

  test('delete_video removes the video; its links answer 404 and lookups 401003', async () => {
    const links = await media.getVideoByVid({ vid });
    expect((await media.deleteVideo({ vid })).err_no).toBe(0);
    expect((await fetch(links.data![0]!.main_play_url)).status).toBe(404);
    const error = await media.getVideoByVid({ vid }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaApiError);
    expect(error).toMatchObject({ errNo: 401003, status: 400 });
    expect((await media.getVideoList({ page_size: 20, page_number: 0 })).total_num).toBe(0);
  });
});

describe('the token interface', () => {
  test('answers a signed envelope with access_token and expires_in', async () => {
    const response = await post(`${platform.url}/oauth/client_token/`, {
      client_key: 'tt-x',
      client_secret: 's',
      grant_type: 'client_credential',
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ err_no: 0, err_msg: 'success', data: { expires_in: 7200 } });
    expect((response.json['data'] as { access_token: string }).access_token).toMatch(/^clt\./);
    expect(response.headers.get('x-platform-logid')).toBe(response.json['log_id']);
    expect(verifySignedWithOpenssl(platform.publicKeyPath, response.headers, response.text, tmp.dir)).toBe(true);
    expect(verifySignedWithOpenssl(platform.publicKeyPath, response.headers, response.text + ' ', tmp.dir)).toBe(false);
  });

  test('an expired token is refused with 401 28001008 and the client renews it by itself', async () => {
    const token = (
      await post(`${platform.url}/oauth/client_token/`, {
        client_key: 'tt-app-1',
        client_secret: 's',
        grant_type: 'client_credential',
      })
    ).json;
    const accessToken = (token['data'] as { access_token: string }).access_token;
    clockOffset = 7201 * 1000;
    try {
      const refused = await post(
        `${platform.url}/api/cloud_voc/get_video_list`,
        { page_size: 1, page_number: 0 },
        { 'access-token': accessToken },
      );
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ err_no: 28001008, data: null });
      expect(String(refused.json['err_msg'])).toMatch(/access-token expired at .*; get a new one/);
      const list = await media.getVideoList({ page_size: 1, page_number: 0 });
      expect(list.err_no).toBe(0);
    } finally {
      clockOffset = 0;
    }
  });
});

describe('pointing a client at the emulator', () => {
  test('mediaClientEnv configures createMediaClient() with no options, and the sample video uploads', async () => {
    const { mediaClientEnv } = await import('../../src/platform/index.js');
    const env = mediaClientEnv(platform);
    expect(env).toMatchObject({
      CLOUDFN_MEDIA_BASE_URL: platform.url,
      CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY: platform.publicKeyPath,
      CLOUDFN_MEDIA_ENV_ID: 'env-1',
    });
    const client = createMediaClient({ env, retries: 0 });
    const [outcome] = await client.uploadAndWait(
      [{ source_url: env['CLOUDFN_PLATFORM_SAMPLE_URL']!, file_name: 'sample' }],
      wait,
    );
    expect(outcome).toMatchObject({ ok: true, source_info: { format: 'mp4' } });
    const sample = await fetch(env['CLOUDFN_PLATFORM_SAMPLE_URL']!);
    expect(sample.headers.get('content-type')).toBe('video/mp4');
  });
});
