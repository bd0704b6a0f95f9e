/**
 * The nine methods against a platform stand-in on a real socket: what is sent (path, headers,
 * token, a signature verified over the received bytes), how the samples are normalized, and
 * every error form.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createMediaClient,
  MediaApiError,
  MediaErrNo,
  MediaError,
  MediaValidationError,
} from '../../src/media/index.js';
import type { MediaClientOptions } from '../../src/media/index.js';
import { FakeClock, makeKeys, MediaServer, sampleResponder } from './media-server.js';
import type { Keys } from './media-server.js';

let keys: Keys;
let server: MediaServer;
let clock: FakeClock;

beforeAll(async () => {
  keys = makeKeys();
  server = await new MediaServer(keys).start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
  server.responder = sampleResponder;
  clock = new FakeClock();
});

function client(extra: MediaClientOptions = {}) {
  return createMediaClient({
    baseUrl: server.url,
    accessToken: 'tok-static',
    signing: { appid: 'tt-app', privateKey: keys.appPrivatePem, keyVersion: '7' },
    platformPublicKey: keys.platformPublicPem,
    retries: 0,
    clock,
    env: {},
    ...extra,
  });
}

const nowS = () => Math.floor(clock.now() / 1000);

async function rejection(promise: Promise<unknown>): Promise<MediaError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MediaError);
    return error as MediaError;
  }
  throw new Error('expected a rejection');
}

describe('every call', () => {
  it('sends each of the nine operations signed, with its token, to its documented path', async () => {
    const media = client();
    const start_time = String(nowS() - 86_400);
    const end_time = String(nowS());
    const calls: Array<[string, () => Promise<unknown>, unknown]> = [
      [
        'get_video_list',
        () => media.getVideoList({ page_size: 20, page_number: 0, video_name: '第一集' }),
        { page_size: 20, page_number: 0, video_name: '第一集' },
      ],
      ['delete_video', () => media.deleteVideo({ vid: 'v1', env_id: 'env-1' }), { vid: 'v1', env_id: 'env-1' }],
      [
        'get_video_by_vid',
        () => media.getVideoByVid({ vid: 'v1', expire_time: 7200 }),
        { vid: 'v1', expire_time: 7200 },
      ],
      [
        'upload_video_by_urls',
        () =>
          media.uploadVideoByUrls({ url_sets: [{ source_url: 'https://cdn.example.com/ep1.mp4', file_name: 'ep1' }] }),
        { url_sets: [{ source_url: 'https://cdn.example.com/ep1.mp4', file_name: 'ep1' }] },
      ],
      [
        'get_upload_job_info',
        () => media.getUploadJobInfo({ job_ids: ['job-1', 'job-404'] }),
        { job_ids: ['job-1', 'job-404'] },
      ],
      [
        'start_work_flow',
        () => media.startWorkFlow({ vid: 'v1', trans_code_type: '5' }),
        { vid: 'v1', trans_code_type: '5' },
      ],
      ['get_work_flow_exection', () => media.getWorkFlowExecution({ run_id: 'run-1' }), { run_id: 'run-1' }],
      [
        'describe_vod_played_top_data',
        () => media.describeVodPlayedTopData({ env_id: 'env-1', order_type: 5, start_time, end_time }),
        { env_id: 'env-1', order_type: 5, start_time, end_time },
      ],
      [
        'describe_vod_played_static_data',
        () =>
          media.describeVodPlayedStaticData({ env_id: 'env-1', vid_list: ['v1'], order_type: 2, start_time, end_time }),
        { env_id: 'env-1', vid_list: ['v1'], order_type: 2, start_time, end_time },
      ],
    ];
    for (const [operation, run, body] of calls) {
      const result = (await run()) as { err_no: unknown };
      expect(result.err_no).toBe(0);
      const req = server.received.at(-1)!;
      expect(req.method).toBe('POST');
      expect(req.path).toBe(`/api/cloud_voc/${operation}`);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['access-token']).toBe('tok-static');
      expect(req.json).toEqual(body);
      expect(req.verified).toMatchObject({ appid: 'tt-app', keyVersion: '7' });
    }
    expect(server.received).toHaveLength(9);
  });

  it('signs the exact bytes sent, non-ASCII included', async () => {
    await client().getVideoList({ page_size: 20, page_number: 0, video_name: '短剧 "第一集" ✓' });
    const req = server.received[0]!;
    expect(req.raw.toString('utf8')).toBe('{"page_size":20,"page_number":0,"video_name":"短剧 \\"第一集\\" ✓"}');
    expect(req.verified).not.toBeInstanceOf(Error);
  });

  it('signs the path with the base URL prefix', async () => {
    server.responder = (req) => sampleResponder({ ...req, path: req.path.replace('/prefix', '') });
    await client({ baseUrl: `${server.url}/prefix/` }).getWorkFlowExecution({ run_id: 'r' });
    const req = server.received[0]!;
    expect(req.path).toBe('/prefix/api/cloud_voc/get_work_flow_exection');
    expect(req.verified).toMatchObject({ appid: 'tt-app' });
  });

  it('sends no Platform-Authorization without signing, and accepts unsigned 2xx without a platform key', async () => {
    server.responder = () => ({ body: { err_no: 0, err_msg: 'success', total_num: 0, data: [] }, sign: false });
    const media = createMediaClient({ baseUrl: server.url, accessToken: 't', env: {} });
    await expect(media.getVideoList({ page_size: 1, page_number: 0 })).resolves.toMatchObject({ total_num: 0 });
    expect(server.received[0]!.headers['platform-authorization']).toBeUndefined();
  });

  it('sends nothing when validation fails, naming field, value and limit', async () => {
    const error = await rejection(client().getVideoList({ page_size: 50, page_number: 0 }));
    expect(error).toBeInstanceOf(MediaValidationError);
    expect(error.code).toBe('MEDIA_INVALID_REQUEST');
    expect(error.message).toBe('get_video_list: page_size must be at most 20, got 50; nothing was sent');
    expect((error as MediaValidationError).field).toBe('page_size');
    expect(server.received).toHaveLength(0);
  });

  it('fills env_id from the envId option', async () => {
    await client({ envId: 'env-default' }).deleteVideo({ vid: 'v1' });
    expect(server.received[0]!.json).toEqual({ vid: 'v1', env_id: 'env-default' });
  });

  it('logs each call with its log_id through the logger', async () => {
    const lines: unknown[] = [];
    const log = (...v: unknown[]) => lines.push(...v);
    await client({ logger: { debug: log, info: log, warn: log, error: log } }).getVideoList({
      page_size: 20,
      page_number: 0,
    });
    expect(lines).toEqual([
      expect.objectContaining({
        media: 'get_video_list',
        status: 200,
        err_no: 0,
        log_id: '20240101120000ABCDEF',
        attempts: 1,
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('tok-static');
  });
});

describe('scoped', () => {
  it('shares the client but logs to the scope logger and uses the scope signal', async () => {
    const base: unknown[] = [];
    const scoped: unknown[] = [];
    const media = client({ logger: { debug: () => {}, info: (v) => base.push(v), warn: () => {}, error: () => {} } });
    const controller = new AbortController();
    const m = media.scoped({
      logger: { debug: () => {}, info: (v) => scoped.push(v), warn: () => {}, error: () => {} },
      signal: controller.signal,
    });
    await m.getVideoList({ page_size: 20, page_number: 0 });
    expect(scoped).toHaveLength(1);
    expect(base).toHaveLength(0);
    controller.abort(new Error('function timed out'));
    expect((await rejection(m.getVideoByVid({ vid: 'v1' }))).code).toBe('MEDIA_ABORTED');
    expect((await rejection(m.transcodeAndWait('v1'))).code).toBe('MEDIA_ABORTED');
    await media.getVideoByVid({ vid: 'v1' });
    expect(base).toHaveLength(1);
  });
});

describe('normalization of the samples', () => {
  it('get_video_list: total_num and numeric fields sent as text become numbers', async () => {
    const list = await client().getVideoList({ page_size: 20, page_number: 0 });
    expect(list.total_num).toBe(2);
    expect(list.err_no).toBe(0);
    expect(list.log_id).toBe('20240101120000ABCDEF');
    expect(list.data?.[1]).toEqual({
      video_name: 'episode 2',
      vid: 'v0d00fg10000bbbb',
      size: 2097152,
      upload_time: 1700000100,
      business_status: 99,
      trans_code_status: 1,
      source_type: 1,
      video_open_id: 'open-2',
    });
  });

  it('get_video_by_vid: err_no "0" is success and becomes 0', async () => {
    const res = await client().getVideoByVid({ vid: 'v1' });
    expect(res.err_no).toBe(0);
    expect(res.data?.[0]).toMatchObject({
      main_play_url: 'https://play.example.com/main.mp4',
      size: 1048576.5,
      is_original: true,
    });
  });

  it('get_upload_job_info: a single file_type string becomes a list', async () => {
    const res = await client().getUploadJobInfo({ job_ids: ['job-1', 'job-404'] });
    const info = res.data?.video_infos?.[0];
    expect(info?.source_info?.file_type).toEqual(['video']);
    expect(info?.source_info).toMatchObject({ store_uri: 'tos://bucket/ep1', file_path: '/ep1.mp4', duration: 61.5 });
    expect(res.data?.not_exist_job_ids).toEqual(['job-404']);
  });

  it('get_work_flow_exection: run_status "10" becomes 10; statistics counts become numbers', async () => {
    const media = client();
    expect(await media.getWorkFlowExecution({ run_id: 'run-1' })).toMatchObject({
      run_status: 10,
      run_status_msg: 'success',
    });
    const top = await media.describeVodPlayedTopData({
      env_id: 'e',
      order_type: 6,
      start_time: nowS() - 60,
      end_time: nowS(),
    });
    expect(top.play_static_infos[0]!.play_count).toBe(42);
  });

  it('start_work_flow: a numeric run_id becomes text; log_id falls back to x-platform-logid', async () => {
    server.responder = () => ({ body: { err_no: 0, err_msg: 'success', log_id: true, run_id: 12345 } });
    const res = await client().startWorkFlow({ vid: 'v1' });
    expect(res).toEqual({ err_no: 0, err_msg: 'success', log_id: 'hdr-logid-1', run_id: '12345' });
  });
});

describe('error forms', () => {
  it.each([
    [400, 41050, 'no user authority error', MediaErrNo.NO_USER_AUTHORITY],
    [400, 40001, 'param error', MediaErrNo.PARAM_ERROR],
    [200, 401001, 'input params is invalid', MediaErrNo.INPUT_PARAMS_INVALID],
    [200, 401002, 'space not exist', MediaErrNo.SPACE_NOT_EXIST],
    [200, 401003, 'video not exist', MediaErrNo.VIDEO_NOT_EXIST],
  ])('HTTP %i with err_no %i → MediaApiError', async (status, errNo, errMsg, constant) => {
    server.responder = () => ({
      status,
      body: { err_no: errNo, err_msg: errMsg, log_id: 'LOG123', data: null },
      sign: status === 200,
    });
    const error = (await rejection(client().getVideoList({ page_size: 20, page_number: 0 }))) as MediaApiError;
    expect(error).toBeInstanceOf(MediaApiError);
    expect(error).toMatchObject({
      code: 'MEDIA_API_ERROR',
      operation: 'get_video_list',
      status,
      errNo: constant,
      errMsg,
      logId: 'LOG123',
    });
    expect(error.message).toBe(`get_video_list failed: ${errNo} ${errMsg} (log_id LOG123)`);
  });

  it('err_no sent as text still fails the call; log_id comes from the header when the body has none', async () => {
    server.responder = () => ({ body: { err_no: '401003', err_msg: 'video not exist', data: null } });
    const error = (await rejection(client().getVideoByVid({ vid: 'gone' }))) as MediaApiError;
    expect(error).toMatchObject({ status: 200, errNo: 401003, logId: 'hdr-logid-1' });
  });

  it('an unsigned 500 with a non-JSON body is an API error with the status', async () => {
    server.responder = () => ({ status: 500, body: '<html>Internal Server Error</html>', sign: false });
    const error = (await rejection(client().getVideoList({ page_size: 20, page_number: 0 }))) as MediaApiError;
    expect(error).toMatchObject({ code: 'MEDIA_API_ERROR', status: 500, errNo: undefined, logId: 'hdr-logid-1' });
    expect(error.message).toBe('get_video_list failed: HTTP 500 (log_id hdr-logid-1)');
  });

  it('an unsigned 2xx is refused as forged', async () => {
    server.responder = () => ({ body: { err_no: 0, err_msg: 'success', total_num: 0, data: [] }, sign: false });
    const error = await rejection(client().getVideoList({ page_size: 20, page_number: 0 }));
    expect(error.code).toBe('MEDIA_FORGED_RESPONSE');
    expect(error.message).toContain('the 200 response carries no Platform-Signature');
  });

  it('a tampered 2xx is refused as forged', async () => {
    server.responder = () => ({ body: { err_no: 0, err_msg: 'success', total_num: 1, data: [] }, tamper: true });
    const error = await rejection(client().getVideoList({ page_size: 20, page_number: 0 }));
    expect(error.code).toBe('MEDIA_FORGED_RESPONSE');
    expect(error.message).toContain('fails verification');
  });

  it('a 2xx signed by another key is refused as forged', async () => {
    const other = makeKeys();
    const error = await rejection(
      client({ platformPublicKey: other.platformPublic }).getVideoList({ page_size: 20, page_number: 0 }),
    );
    expect(error.code).toBe('MEDIA_FORGED_RESPONSE');
  });

  it('a signed 2xx that is not JSON is a bad response', async () => {
    server.responder = () => ({ body: 'OK' });
    const error = await rejection(client().getVideoList({ page_size: 20, page_number: 0 }));
    expect(error.code).toBe('MEDIA_BAD_RESPONSE');
    expect(error.message).toContain('"OK"');
  });

  it('429 is an API error with status 429 when no retry is left', async () => {
    server.responder = () => ({ status: 429, body: { err_no: 429, err_msg: 'too many requests' }, sign: false });
    const error = (await rejection(client().startWorkFlow({ vid: 'v1' }))) as MediaApiError;
    expect(error).toMatchObject({ status: 429, errNo: 429 });
  });

  it('a slow answer times out after timeoutMs', async () => {
    server.responder = () => ({ delayMs: 400, body: { err_no: 0 } });
    const error = await rejection(client({ timeoutMs: 100 }).getVideoList({ page_size: 20, page_number: 0 }));
    expect(error.code).toBe('MEDIA_TIMEOUT');
    expect(error.message).toBe(
      'get_video_list: no response within 100 ms; raise timeoutMs (CLOUDFN_MEDIA_TIMEOUT_MS) or retry later',
    );
    // No bound in milliseconds (a loaded machine may fire the 100 ms timer late): the server
    // answers after 400 ms, so MEDIA_TIMEOUT above already says the client gave up before it.
  });

  it('a per-call timeoutMs overrides the client option', async () => {
    server.responder = () => ({ delayMs: 300, body: { err_no: 0 } });
    const error = await rejection(
      client({ timeoutMs: 5000 }).getVideoList({ page_size: 20, page_number: 0 }, { timeoutMs: 50 }),
    );
    expect(error.code).toBe('MEDIA_TIMEOUT');
  });

  it("the caller's signal aborts a call in flight", async () => {
    server.responder = () => ({ delayMs: 400, body: { err_no: 0 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    const error = await rejection(
      client().getVideoList({ page_size: 20, page_number: 0 }, { signal: controller.signal }),
    );
    expect(error.code).toBe('MEDIA_ABORTED');
    expect(error.message).toContain('client went away');
  });

  it('an already aborted signal sends nothing', async () => {
    const error = await rejection(
      client().getVideoList({ page_size: 20, page_number: 0 }, { signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe('MEDIA_ABORTED');
    expect(server.received).toHaveLength(0);
  });
});

describe('configured from env vars only', () => {
  it('signs, verifies and authenticates a call with no options in code', async () => {
    const env = {
      CLOUDFN_MEDIA_BASE_URL: server.url,
      CLOUDFN_MEDIA_ACCESS_TOKEN: 'tok-env',
      CLOUDFN_MEDIA_APPID: 'tt-env',
      CLOUDFN_MEDIA_KEY_VERSION: '7',
      CLOUDFN_MEDIA_PRIVATE_KEY: keys.appPrivatePem.replace(/\n/g, '\\n'),
      CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY: keys.platformPublicPem.replace(/\n/g, '\\n'),
      CLOUDFN_MEDIA_ENV_ID: 'env-from-env',
    };
    const media = createMediaClient({ env });
    await media.deleteVideo({ vid: 'v1' });
    const req = server.received[0]!;
    expect(req.headers['access-token']).toBe('tok-env');
    expect(req.verified).toMatchObject({ appid: 'tt-env', keyVersion: '7' });
    expect(req.json).toEqual({ vid: 'v1', env_id: 'env-from-env' });
    server.responder = () => ({ body: { err_no: 0 }, sign: false });
    expect((await rejection(media.deleteVideo({ vid: 'v1' }))).code).toBe('MEDIA_FORGED_RESPONSE');
  });
});
