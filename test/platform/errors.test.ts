/**
 * The envelope, the HTTP statuses and the error codes, with raw requests, and the faults
 * a client can be tested against.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMediaClient, MediaError } from '../../src/media/index.js';
import type { Platform } from '../../src/platform/index.js';
import { post, startPlatform, tempDir, tokenFor, verifySignedWithOpenssl } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let platform: Platform;
let api: (operation: string, body: unknown, token?: string) => ReturnType<typeof post>;
let token = '';
let vid = '';

beforeAll(async () => {
  tmp = tempDir();
  // A clock that stands still, so the rate limiter's one-second window holds all the calls below however slow the machine.
  const frozen = Date.now();
  ({ platform } = await startPlatform(join(tmp.dir, 'data'), { ffmpeg: false, envIds: ['env-1'], now: () => frozen }));
  token = await tokenFor(platform.url, 'tt-owner');
  api = (operation, body, t = token) =>
    post(`${platform.url}/api/cloud_voc/${operation}`, body, t === '' ? {} : { 'access-token': t });
  // A video owned by tt-owner, put straight into the state: this file tests answers, not uploads.
  vid = 'vtest0001';
  platform.context.store.state.videos[vid] = {
    vid,
    appid: 'tt-owner',
    name: 'fixture',
    md5: '',
    sourceUrl: 'http://127.0.0.1/x.mp4',
    uploadTime: Math.floor(Date.now() / 1000),
    reviewAt: 0,
    sourceType: 2,
    transCodeStatus: 1,
    fileTypes: ['video'],
    original: {
      file: `media/${vid}/original.mp4`,
      format: 'mp4',
      width: 0,
      height: 0,
      duration: 0,
      bitrate: 0,
      codec: '',
      size: 0,
    },
    renditions: {},
  };
});
afterAll(async () => {
  await platform.close();
  tmp.remove();
});

describe('error answers', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => ReturnType<typeof post>, number, number, RegExp][] = [
    [
      'no access-token',
      () => api('get_video_list', { page_size: 1, page_number: 0 }, ''),
      401,
      28001003,
      /access-token header is missing/,
    ],
    [
      'an unknown access-token',
      () => api('get_video_list', { page_size: 1, page_number: 0 }, 'clt.forged'),
      401,
      28001003,
      /was not issued by this platform/,
    ],
    [
      'page_size over 20',
      () => api('get_video_list', { page_size: 50, page_number: 0 }),
      400,
      40001,
      /^param error: page_size must be at most 20, got 50$/,
    ],
    ['a body that is not JSON', () => api('get_video_list', '{"page_size":'), 400, 40001, /the body is not valid JSON/],
    ['a body that is a list', () => api('get_video_list', '[1]'), 400, 40001, /must be a JSON object, got a list/],
    [
      'a body over maxBodyBytes',
      () => api('get_video_list', `{"pad":"${'x'.repeat(1_048_576)}"}`),
      413,
      41300,
      /larger than 1048576 bytes/,
    ],
    [
      'expire_time under an hour',
      () => api('get_video_by_vid', { vid, expire_time: 60 }),
      400,
      40001,
      /expire_time must be at least 3600, got 60/,
    ],
    [
      '21 url_sets',
      () => api('upload_video_by_urls', { url_sets: Array(21).fill({ source_url: 'http://a/b.mp4', file_name: 'b' }) }),
      400,
      40001,
      /at most 20 entries, got 21/,
    ],
    [
      'a source_url over ftp',
      () => api('upload_video_by_urls', { url_sets: [{ source_url: 'ftp://a/b.mp4', file_name: 'b' }] }),
      400,
      40001,
      /http or https URL/,
    ],
    [
      'an unknown template',
      () => api('start_work_flow', { vid, trans_code_type: '7' }),
      400,
      40001,
      /trans_code_type must be one of "3", "4", "5"/,
    ],
    ['no run_id', () => api('get_work_flow_exection', {}), 400, 40001, /run_id is required/],
    [
      'start_time older than 30 days',
      () =>
        api('describe_vod_played_top_data', {
          env_id: 'env-1',
          order_type: 5,
          start_time: now() - 31 * 86400,
          end_time: now(),
        }),
      400,
      40001,
      /within the last 30 days/,
    ],
    [
      'end_time before start_time',
      () =>
        api('describe_vod_played_top_data', {
          env_id: 'env-1',
          order_type: 5,
          start_time: now() - 60,
          end_time: now() - 120,
        }),
      400,
      40001,
      /greater than start_time/,
    ],
    [
      'an unknown run_id',
      () => api('get_work_flow_exection', { run_id: 'run-nope' }),
      400,
      401001,
      /^input params is invalid: run_id "run-nope"/,
    ],
    [
      'an unknown env_id',
      () => api('delete_video', { vid, env_id: 'env-2' }),
      400,
      401002,
      /^space not exist: env_id "env-2" .* use one of "env-1"/,
    ],
    [
      'an unknown vid',
      () => api('get_video_by_vid', { vid: 'v-nope' }),
      400,
      401003,
      /^video not exist: no video has vid "v-nope"/,
    ],
    [
      'an unknown vid in vid_list',
      () =>
        api('describe_vod_played_static_data', {
          env_id: 'env-1',
          vid_list: [vid, 'v-nope'],
          order_type: 1,
          start_time: now() - 60,
          end_time: now(),
        }),
      400,
      401003,
      /v-nope/,
    ],
  ];
  test.each(cases)('%s', async (_, send, status, errNo, message) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ err_no: errNo, data: null });
    expect(String(response.json['err_msg'])).toMatch(message);
    expect(response.headers.get('x-platform-logid')).toBe(response.json['log_id']);
    expect(response.headers.get('platform-signature')).toBeNull();
  });

  test("another mini-program's video is 41050", async () => {
    const other = await tokenFor(platform.url, 'tt-intruder');
    const response = await api('start_work_flow', { vid }, other);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ err_no: 41050 });
    expect(String(response.json['err_msg'])).toMatch(
      /^no user authority error: video vtest0001 belongs to another mini-program than tt-intruder/,
    );
  });

  test('unknown paths are 404 and other methods 405, with a log id', async () => {
    const missing = await post(`${platform.url}/api/cloud_voc/get_video_lists`, {});
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ err_no: 40400 });
    expect(missing.headers.get('x-platform-logid')).toMatch(/^\d{14}[0-9A-F]{18}$/);
    const get = await fetch(`${platform.url}/api/cloud_voc/get_video_list`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const bogusLink = await fetch(`${platform.url}/media/1/tt/abc/v/original/original.mp4`);
    expect(bogusLink.status).toBe(403);
    expect(await bogusLink.json()).toMatchObject({ err_no: 40301 });
  });

  test('the token interface refuses a wrong grant_type and, with registered clients, a wrong secret', async () => {
    const grant = await post(`${platform.url}/oauth/client_token/`, {
      client_key: 'a',
      client_secret: 'b',
      grant_type: 'authorization_code',
    });
    expect(grant.status).toBe(400);
    expect(grant.json).toMatchObject({ err_no: 40001 });
    const { platform: strict } = await startPlatform(join(tmp.dir, 'strict'), {
      ffmpeg: false,
      clients: { tt1: 'right' },
    });
    try {
      const wrong = await post(`${strict.url}/oauth/client_token/`, {
        client_key: 'tt1',
        client_secret: 'wrong',
        grant_type: 'client_credential',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toMatchObject({ err_no: 40105 });
      const right = await post(`${strict.url}/oauth/client_token/`, {
        client_key: 'tt1',
        client_secret: 'right',
        grant_type: 'client_credential',
      });
      expect(right.status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  test('success answers are signed with the published key, whatever the operation', async () => {
    const response = await api('get_video_list', { page_size: 20, page_number: 0 });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ err_no: 0, err_msg: 'success', total_num: 1 });
    expect(verifySignedWithOpenssl(platform.publicKeyPath, response.headers, response.text, tmp.dir)).toBe(true);
    const pem = await (await fetch(`${platform.url}/platform_public_key.pem`)).text();
    expect(pem).toBe(platform.publicKeyPem);
  });
});

describe('rate limits', () => {
  test('the 21st statistics query within a second is 429 42900 with Retry-After; other apps and operations are not affected', async () => {
    const end = Math.floor(Date.now() / 1000);
    const body = { env_id: 'env-1', order_type: 5, start_time: end - 60, end_time: end };
    // A fresh appid: the calls of the error table above count against tt-owner's window too.
    const rated = await tokenFor(platform.url, 'tt-rated');
    const answers = await Promise.all(
      Array.from({ length: 22 }, () => api('describe_vod_played_top_data', body, rated)),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(2);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
    expect(limited[0]!.json).toMatchObject({ err_no: 42900 });
    expect(String(limited[0]!.json['err_msg'])).toMatch(
      /describe_vod_played_top_data exceeded \(20 per second per appid\)/,
    );
    expect(limited[0]!.headers.get('retry-after')).toBe('1');
    const other = await tokenFor(platform.url, 'tt-elsewhere');
    expect((await api('describe_vod_played_top_data', body, other)).status).toBe(200);
    const list = await Promise.all(
      Array.from({ length: 25 }, () => api('get_video_list', { page_size: 1, page_number: 0 })),
    );
    expect(list.every((a) => a.status === 200)).toBe(true);
  });
});

describe('faults on demand', () => {
  const listBody = { page_size: 1, page_number: 0 };
  test.each([
    ['500=1', 500, 50000],
    ['expired-token=1', 401, 28001008],
    ['rate-limit=1', 429, 42900],
  ] as const)('%s answers %d with err_no %d, unsigned', async (spec, status, errNo) => {
    platform.setFaults(spec);
    try {
      const response = await api('get_video_list', listBody);
      expect(response.status).toBe(status);
      expect(response.json).toMatchObject({ err_no: errNo });
      expect(response.headers.get('platform-signature')).toBeNull();
    } finally {
      platform.setFaults({});
    }
  });

  test('bad-signature=1 answers 200 with a signature that does not verify, and the client refuses it', async () => {
    platform.setFaults('bad-signature=1');
    try {
      const response = await api('get_video_list', listBody);
      expect(response.status).toBe(200);
      expect(response.headers.get('platform-signature')).not.toBeNull();
      expect(verifySignedWithOpenssl(platform.publicKeyPath, response.headers, response.text, tmp.dir)).toBe(false);
      const media = createMediaClient({
        baseUrl: platform.url,
        accessToken: token,
        platformPublicKey: platform.publicKeyPath,
        retries: 0,
        env: {},
      });
      const error = await media.getVideoList(listBody).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MediaError);
      expect((error as MediaError).code).toBe('MEDIA_FORGED_RESPONSE');
    } finally {
      platform.setFaults({});
    }
  });

  test('latency delays the answer; a partial rate follows the dice', async () => {
    platform.setFaults('latency=1:150');
    try {
      // performance.now() is the monotonic clock timers use: Date.now() may step, and a timer
      // may fire a millisecond before the wall clock says; a lower bound needs no slack beyond that.
      const started = performance.now();
      expect((await api('get_video_list', listBody)).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(149);
    } finally {
      platform.setFaults({});
    }
    platform.setFaults('500=0.5');
    try {
      const statuses = await Promise.all(
        Array.from({ length: 40 }, async () => (await api('get_video_list', listBody)).status),
      );
      expect(statuses.filter((s) => s === 500).length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    } finally {
      platform.setFaults({});
    }
  });
});
