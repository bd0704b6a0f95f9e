/**
 * The helpers against a scripted platform on a real socket, with a fake clock for polling:
 * paging, uploads of more than 20 URLs, transcodes, statistics over more than 100 vids.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMediaClient, type MediaError, MediaValidationError } from '../../src/media/index.js';
import type { MediaClientOptions, UrlSet } from '../../src/media/index.js';
import { FakeClock, makeKeys, MediaServer, sampleResponder } from './media-server.js';
import type { Received, Reply } from './media-server.js';

let server: MediaServer;
let clock: FakeClock;

beforeAll(async () => {
  server = await new MediaServer(makeKeys()).start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
  server.responder = sampleResponder;
  clock = new FakeClock();
});

const client = (extra: MediaClientOptions = {}) =>
  createMediaClient({ baseUrl: server.url, accessToken: 't', clock, env: {}, retries: 0, ...extra });
const op = (req: Received) => req.path.replace('/api/cloud_voc/', '');
const body = (req: Received) => req.json as Record<string, unknown>;

describe('listVideos', () => {
  function library(total: number) {
    server.responder = (req): Reply => {
      const { page_size, page_number } = body(req) as { page_size: number; page_number: number };
      const from = page_size * page_number;
      const data = Array.from({ length: Math.max(0, Math.min(page_size, total - from)) }, (_, i) => ({
        video_name: `v${from + i}`,
        vid: `vid-${from + i}`,
        size: 1,
        upload_time: 1,
        business_status: 99,
      }));
      return { body: { err_no: 0, err_msg: 'success', total_num: String(total), data } };
    };
  }

  it('walks every page until a short page', async () => {
    library(45);
    const vids: string[] = [];
    for await (const video of client().listVideos({ business_status: 99 })) vids.push(video.vid);
    expect(vids).toEqual(Array.from({ length: 45 }, (_, i) => `vid-${i}`));
    expect(server.received.map((r) => body(r))).toEqual(
      [0, 1, 2].map((page_number) => ({ business_status: 99, page_size: 20, page_number })),
    );
  });

  it('stops at total_num without asking for an empty page', async () => {
    library(40);
    let n = 0;
    for await (const _ of client().listVideos()) n++;
    expect(n).toBe(40);
    expect(server.received).toHaveLength(2);
  });

  it('can stop early, and honours page_size', async () => {
    library(100);
    const media = client();
    for await (const video of media.listVideos({ page_size: 5 })) if (video.vid === 'vid-7') break;
    expect(server.received.map((r) => body(r).page_number)).toEqual([0, 1]);
    expect(body(server.received[0]!).page_size).toBe(5);
  });

  it('keeps paging when total_num is missing, until a short page', async () => {
    server.responder = (req): Reply => {
      const { page_number } = body(req) as { page_number: number };
      const size = page_number < 2 ? 20 : 3;
      return {
        body: {
          err_no: 0,
          err_msg: 'success',
          data: Array.from({ length: size }, (_, i) => ({
            video_name: 'v',
            vid: `p${page_number}-${i}`,
            size: 1,
            upload_time: 1,
            business_status: 98,
          })),
        },
      };
    };
    let n = 0;
    for await (const _ of client().listVideos()) n++;
    expect(n).toBe(43);
  });

  it('an empty library yields nothing', async () => {
    server.responder = () => ({ body: { err_no: 0, err_msg: 'success', total_num: 0, data: null } });
    let n = 0;
    for await (const _ of client().listVideos()) n++;
    expect(n).toBe(0);
  });
});

describe('uploadAndWait', () => {
  const sets: UrlSet[] = Array.from({ length: 25 }, (_, i) => ({
    source_url: `https://cdn.example.com/ep${i}.mp4`,
    file_name: `ep${i}`,
  }));

  /** Jobs finish on the second poll: ep3 fails, ep4's job is unknown, the rest succeed. */
  function uploads(finishOnPoll = 2, requestsPerPoll = 2) {
    let polls = 0;
    const jobsByUrl = new Map<string, string>();
    server.responder = (req): Reply => {
      if (op(req) === 'upload_video_by_urls') {
        const url_sets = body(req).url_sets as UrlSet[];
        // Answer in reverse order: matching must go by source_url.
        const url_jobs = url_sets.map((s) => ({ source_url: s.source_url, job_id: `job-${s.file_name}` })).reverse();
        for (const j of url_jobs) jobsByUrl.set(j.source_url, j.job_id);
        return { body: { err_no: 0, err_msg: 'success', log_id: 'U', data: { url_jobs } } };
      }
      polls++;
      const ids = body(req).job_ids as string[];
      const done = polls > requestsPerPoll * (finishOnPoll - 1);
      const video_infos = ids
        .filter((id) => id !== 'job-ep4')
        .map((id) => {
          const n = id.replace('job-ep', '');
          const base = { request_id: `r-${n}`, job_id: id, source_url: `https://cdn.example.com/ep${n}.mp4` };
          if (!done) return { ...base, state: 'process' };
          if (id === 'job-ep3') return { ...base, state: 'fail' };
          return { ...base, state: 'success', vid: `vid-${n}`, source_info: { file_type: 'video', duration: '12.5' } };
        });
      return {
        body: {
          err_no: 0,
          err_msg: 'success',
          log_id: 'J',
          data: { video_infos, not_exist_job_ids: ids.includes('job-ep4') ? ['job-ep4'] : [] },
        },
      };
    };
  }

  it('splits 25 URLs into 20 + 5, polls with back-off and returns one outcome per URL in order', async () => {
    uploads();
    const results = await client().uploadAndWait(sets, { pollIntervalMs: 1000 });
    expect(server.to('upload_video_by_urls').map((r) => (body(r).url_sets as unknown[]).length)).toEqual([20, 5]);
    expect(server.to('get_upload_job_info').every((r) => (body(r).job_ids as unknown[]).length <= 20)).toBe(true);
    expect(results).toHaveLength(25);
    expect(results[0]).toEqual({
      ok: true,
      source_url: sets[0]!.source_url,
      file_name: 'ep0',
      job_id: 'job-ep0',
      vid: 'vid-0',
      source_info: { file_type: ['video'], duration: 12.5 },
    });
    expect(results[24]).toMatchObject({ ok: true, vid: 'vid-24' });
    const failed = results[3]!;
    expect(failed.ok).toBe(false);
    if (!failed.ok) {
      expect(failed.error.code).toBe('MEDIA_UPLOAD_FAILED');
      expect(failed.error.message).toContain(
        'https://cdn.example.com/ep3.mp4 failed: job job-ep3 ended in state fail (log_id J)',
      );
      expect(failed.state).toBe('fail');
    }
    const unknown = results[4]!;
    expect(unknown.ok || unknown.error.message).toContain('not_exist_job_ids');
    expect(results.filter((r) => r.ok)).toHaveLength(23);
    expect(clock.sleeps).toEqual([1000]);
  });

  it('backs off 1.5× per poll up to maxPollIntervalMs', async () => {
    uploads(5, 1);
    await client().uploadAndWait(sets.slice(0, 3), { pollIntervalMs: 1000, maxPollIntervalMs: 2000 });
    expect(clock.sleeps).toEqual([1000, 1500, 2000, 2000]);
  });

  it('reports jobs still running at timeoutMs as MEDIA_WAIT_TIMEOUT', async () => {
    uploads(1000);
    const results = await client().uploadAndWait(sets.slice(0, 2), { pollIntervalMs: 1000, timeoutMs: 5000 });
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['MEDIA_WAIT_TIMEOUT', 'MEDIA_WAIT_TIMEOUT']);
    expect(results[0]!.ok || results[0]!.state).toBe('process');
    expect(clock.now() - 1_800_000_000_000).toBe(5000);
  });

  it('refuses a bad URL anywhere before sending anything', async () => {
    const bad = [...sets, { source_url: 'ftp://cdn.example.com/x.mp4', file_name: 'x' }];
    const error = await client()
      .uploadAndWait(bad)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaValidationError);
    expect((error as MediaValidationError).field).toBe('url_sets[25].source_url');
    expect((error as Error).message).toContain('url_sets[25].source_url must be an http or https URL');
    expect(server.received).toHaveLength(0);
  });

  it('a refused submission becomes the outcome of its URLs', async () => {
    server.responder = () => ({ status: 400, body: { err_no: 40001, err_msg: 'param error' }, sign: false });
    const results = await client().uploadAndWait(sets.slice(0, 2));
    expect(results.map((r) => !r.ok && r.error.message)).toEqual([
      'upload_video_by_urls failed: 40001 param error (log_id hdr-logid-1)',
      'upload_video_by_urls failed: 40001 param error (log_id hdr-logid-1)',
    ]);
  });
});

describe('transcodeAndWait', () => {
  function runs(statuses: Array<number | string>) {
    let i = 0;
    server.responder = (req): Reply => {
      if (op(req) === 'start_work_flow')
        return { body: { err_no: 0, err_msg: 'success', log_id: 'S', run_id: 'run-9' } };
      const run_status = statuses[Math.min(i++, statuses.length - 1)];
      return {
        body: {
          err_no: 0,
          err_msg: 'success',
          log_id: 'E',
          run_status,
          run_status_msg: run_status === 9 ? 'source broken' : 'ok',
        },
      };
    };
  }

  it('starts with the template and polls until run_status 10', async () => {
    runs([1, '2', 2, 10]);
    const result = await client().transcodeAndWait('vid-1', '5', { pollIntervalMs: 500 });
    expect(result).toEqual({ run_id: 'run-9', run_status: 10, run_status_msg: 'ok', log_id: 'E' });
    expect(body(server.to('start_work_flow')[0]!)).toEqual({ vid: 'vid-1', trans_code_type: '5' });
    expect(server.to('get_work_flow_exection').map((r) => body(r))).toEqual(Array(4).fill({ run_id: 'run-9' }));
    expect(clock.sleeps).toEqual([500, 750, 1125]);
  });

  it('rejects with MEDIA_TRANSCODE_FAILED on run_status 9', async () => {
    runs([2, 9]);
    const error = await client()
      .transcodeAndWait('vid-1')
      .catch((e: unknown) => e);
    expect((error as MediaError).code).toBe('MEDIA_TRANSCODE_FAILED');
    expect((error as Error).message).toContain(
      'transcoding of vid vid-1 failed: run run-9 ended with run_status 9 (source broken)',
    );
    expect(body(server.to('start_work_flow')[0]!)).toEqual({ vid: 'vid-1' });
  });

  it('rejects with MEDIA_WAIT_TIMEOUT', async () => {
    runs([2]);
    const error = await client()
      .transcodeAndWait('vid-1', '3', { timeoutMs: 3000 })
      .catch((e: unknown) => e);
    expect((error as MediaError).code).toBe('MEDIA_WAIT_TIMEOUT');
    expect((error as Error).message).toContain('(last seen: run_status 2 ok)');
  });

  it('an abort stops the polling', async () => {
    runs([2]);
    const controller = new AbortController();
    const slow = {
      now: () => 0,
      sleep: (_: number, signal?: AbortSignal) =>
        new Promise<void>((_r, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    };
    const waiting = client({ clock: slow }).transcodeAndWait('vid-1', '3', { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('function timed out'));
    const error = await waiting.catch((e: unknown) => e);
    expect((error as MediaError).code).toBe('MEDIA_ABORTED');
  });
});

describe('statistics over more than 100 vids', () => {
  const vids = Array.from({ length: 250 }, (_, i) => `vid-${i}`);

  function stats() {
    server.responder = (req): Reply => {
      const { vid_list, app_id_list } = body(req) as { vid_list: string[]; app_id_list?: string[] };
      const apps = app_id_list ?? [''];
      const rows = vid_list.flatMap((vid) =>
        apps.map((app_id) => {
          const n = Number(vid.slice(4));
          return {
            vid,
            app_id,
            name: vid,
            size: 1,
            duration: 1,
            create_time: '2024-01-01',
            play_count: String(n % 17),
            traffic: n,
          };
        }),
      );
      rows.sort((a, b) => Number(b.play_count) - Number(a.play_count));
      return { body: { err_no: 0, err_msg: 'success', log_id: `L${vid_list[0]}`, play_static_infos: rows } };
    };
  }

  const window = () => ({
    start_time: Math.floor(clock.now() / 1000) - 3600,
    end_time: Math.floor(clock.now() / 1000),
  });

  it('getPlayStats splits into 100 + 100 + 50 and merges, sorted again by order_type', async () => {
    stats();
    const result = await client({ envId: 'env-1' }).getPlayStats({ vid_list: vids, order_type: 2, ...window() });
    expect(server.received.map((r) => (body(r).vid_list as string[]).length)).toEqual([100, 100, 50]);
    expect(server.received.every((r) => body(r).env_id === 'env-1')).toBe(true);
    expect(result.play_static_infos).toHaveLength(250);
    const counts = result.play_static_infos.map((r) => r.play_count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(result.log_ids).toEqual(['Lvid-0', 'Lvid-100', 'Lvid-200']);
    expect(result.err_no).toBe(0);
  });

  it('getPlayTotals sums each vid over mini-programs', async () => {
    stats();
    const totals = await client().getPlayTotals({
      env_id: 'e',
      vid_list: vids,
      app_id_list: ['tt1', 'tt2'],
      order_type: 4,
      ...window(),
    });
    expect(totals.size).toBe(250);
    expect(totals.get('vid-120')).toEqual({ play_count: 2 * (120 % 17), traffic: 240 });
  });

  it('a bad vid in a later chunk is refused before any chunk is sent', async () => {
    stats();
    const bad = [...vids];
    bad[150] = '';
    const error = await client()
      .getPlayStats({ env_id: 'e', vid_list: bad, order_type: 2, ...window() })
      .catch((e: unknown) => e);
    expect((error as MediaValidationError).field).toBe('vid_list[150]');
    expect(server.received).toHaveLength(0);
  });

  it('a plain describeVodPlayedStaticData call still refuses 101 vids', async () => {
    const error = await client()
      .describeVodPlayedStaticData({ env_id: 'e', vid_list: vids.slice(0, 101), order_type: 2, ...window() })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'describe_vod_played_static_data: vid_list must have at most 100 entries, got 101; nothing was sent',
    );
  });

  it('rate limiting paces many chunks', async () => {
    stats();
    const many = Array.from({ length: 2500 }, (_, i) => `vid-${i}`);
    await client().getPlayStats({ env_id: 'e', vid_list: many, order_type: 1, ...window() });
    expect(server.received).toHaveLength(25);
    expect(clock.sleeps).toEqual([50, 100, 150, 200, 250]);
  });
});
