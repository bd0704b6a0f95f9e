import { describe, expect, it } from 'vitest';
import { OPERATIONS, validateRequest } from '../../src/media/index.js';
import type { Operation } from '../../src/media/index.js';

const NOW = 1_800_000_000_000;
const nowS = NOW / 1000;
const day = 86_400;
const url = (i: number) => ({ source_url: `https://cdn.example.com/${i}.mp4`, file_name: `ep${i}` });
const ids = (n: number, p = 'id') => Array.from({ length: n }, (_, i) => `${p}${i}`);
const stats = { env_id: 'env-1', start_time: nowS - day, end_time: nowS };

/** [operation, body, field of the first issue (undefined: valid), message fragment] */
const table: Array<[Operation, unknown, string | undefined, string?]> = [
  ['get_video_list', { page_size: 20, page_number: 0 }, undefined],
  [
    'get_video_list',
    { page_size: 1, page_number: 7, business_status: 98, video_name: 'x', env_id: 'env-1' },
    undefined,
  ],
  ['get_video_list', { page_size: 50, page_number: 0 }, 'page_size', 'page_size must be at most 20, got 50'],
  ['get_video_list', { page_size: 0, page_number: 0 }, 'page_size', 'page_size must be at least 1, got 0'],
  ['get_video_list', { page_size: 2.5, page_number: 0 }, 'page_size', 'page_size must be an integer, got 2.5'],
  ['get_video_list', { page_size: '20', page_number: 0 }, 'page_size', 'page_size must be an integer, got "20"'],
  ['get_video_list', { page_number: 0 }, 'page_size', 'page_size is required, got nothing'],
  ['get_video_list', { page_size: 20 }, 'page_number', 'page_number is required'],
  ['get_video_list', { page_size: 20, page_number: -1 }, 'page_number', 'page_number must be at least 0, got -1'],
  [
    'get_video_list',
    { page_size: 20, page_number: 0, business_status: 97 },
    'business_status',
    'business_status must be one of 98, 99, got 97',
  ],
  [
    'get_video_list',
    { page_size: 20, page_number: 0, video_name: 5 },
    'video_name',
    'video_name must be a string, got 5',
  ],
  ['get_video_list', [], 'body', 'the get_video_list body must be a JSON object, got a list'],
  ['get_video_list', null, 'body'],
  ['delete_video', { vid: 'v1', env_id: 'env-1' }, undefined],
  ['delete_video', { vid: '', env_id: 'env-1' }, 'vid', 'vid must not be empty, got ""'],
  ['delete_video', { vid: '   ', env_id: 'env-1' }, 'vid', 'vid must not be empty'],
  ['delete_video', { vid: 'v1' }, 'env_id', 'env_id is required, got nothing'],
  ['get_video_by_vid', { vid: 'v1' }, undefined],
  ['get_video_by_vid', { vid: 'v1', domain: 'play.example.com', expire_time: 3600 }, undefined],
  ['get_video_by_vid', { vid: 'v1', expire_time: 1_209_600 }, undefined],
  ['get_video_by_vid', { vid: 'v1', expire_time: 3599 }, 'expire_time', 'expire_time must be at least 3600, got 3599'],
  [
    'get_video_by_vid',
    { vid: 'v1', expire_time: 1_209_601 },
    'expire_time',
    'expire_time must be at most 1209600, got 1209601',
  ],
  ['get_video_by_vid', { expire_time: 3600 }, 'vid', 'vid is required'],
  ['upload_video_by_urls', { url_sets: [url(1)] }, undefined],
  ['upload_video_by_urls', { url_sets: Array.from({ length: 20 }, (_, i) => url(i)) }, undefined],
  [
    'upload_video_by_urls',
    { url_sets: Array.from({ length: 21 }, (_, i) => url(i)) },
    'url_sets',
    'url_sets must have at most 20 entries, got 21',
  ],
  ['upload_video_by_urls', { url_sets: [] }, 'url_sets', 'url_sets must have at least 1 entry, got []'],
  ['upload_video_by_urls', {}, 'url_sets', 'url_sets is required'],
  [
    'upload_video_by_urls',
    { url_sets: [url(1), { source_url: 'ftp://cdn.example.com/a.mp4', file_name: 'a' }] },
    'url_sets[1].source_url',
    'url_sets[1].source_url must be an http or https URL of the video file, got "ftp://cdn.example.com/a.mp4"',
  ],
  [
    'upload_video_by_urls',
    { url_sets: [{ source_url: 'cdn.example.com/a.mp4', file_name: 'a' }] },
    'url_sets[0].source_url',
  ],
  [
    'upload_video_by_urls',
    { url_sets: [{ source_url: 'http://cdn.example.com/a.mp4', file_name: '' }] },
    'url_sets[0].file_name',
    'must be a non-empty name',
  ],
  ['upload_video_by_urls', { url_sets: [{ source_url: 'http://cdn.example.com/a.mp4' }] }, 'url_sets[0].file_name'],
  ['upload_video_by_urls', { url_sets: ['http://cdn.example.com/a.mp4'] }, 'url_sets[0]'],
  ['get_upload_job_info', { job_ids: ids(20) }, undefined],
  ['get_upload_job_info', { job_ids: ids(21) }, 'job_ids', 'job_ids must have at most 20 entries, got 21'],
  ['get_upload_job_info', { job_ids: [] }, 'job_ids', 'job_ids must have at least 1 entry'],
  ['get_upload_job_info', { job_ids: ['a', ''] }, 'job_ids[1]', 'job_ids[1] must be a non-empty string, got ""'],
  ['get_upload_job_info', { job_ids: 'a' }, 'job_ids', 'job_ids must be a list of strings'],
  ['start_work_flow', { vid: 'v1' }, undefined],
  ['start_work_flow', { vid: 'v1', trans_code_type: '3' }, undefined],
  ['start_work_flow', { vid: 'v1', trans_code_type: '5' }, undefined],
  [
    'start_work_flow',
    { vid: 'v1', trans_code_type: '6' },
    'trans_code_type',
    `trans_code_type must be one of "3", "4", "5", got "6"`,
  ],
  ['start_work_flow', { vid: 'v1', trans_code_type: 3 }, 'trans_code_type', 'got 3'],
  ['start_work_flow', { trans_code_type: '3' }, 'vid'],
  ['get_work_flow_exection', { run_id: 'run-1' }, undefined],
  ['get_work_flow_exection', {}, 'run_id', 'run_id is required'],
  ['describe_vod_played_top_data', { ...stats, order_type: 5 }, undefined],
  [
    'describe_vod_played_top_data',
    { ...stats, order_type: 6, start_time: String(nowS - day), end_time: String(nowS) },
    undefined,
  ],
  ['describe_vod_played_top_data', { ...stats, order_type: 1 }, 'order_type', 'order_type must be one of 5, 6, got 1'],
  ['describe_vod_played_top_data', { ...stats }, 'order_type', 'order_type is required'],
  ['describe_vod_played_top_data', { ...stats, order_type: 5, env_id: undefined }, 'env_id', 'env_id is required'],
  [
    'describe_vod_played_top_data',
    { ...stats, order_type: 5, start_time: nowS - 31 * day },
    'start_time',
    `start_time must be within the last 30 days (at least ${nowS - 30 * day}), got ${nowS - 31 * day}`,
  ],
  ['describe_vod_played_top_data', { ...stats, order_type: 5, start_time: nowS - 30 * day }, undefined],
  [
    'describe_vod_played_top_data',
    { ...stats, order_type: 5, start_time: (nowS - day) * 1000, end_time: nowS * 1000 },
    'start_time',
    'must be in seconds, not milliseconds',
  ],
  [
    'describe_vod_played_top_data',
    { ...stats, order_type: 5, start_time: '12abc' },
    'start_time',
    'must be a timestamp in seconds',
  ],
  [
    'describe_vod_played_top_data',
    { ...stats, order_type: 5, end_time: nowS - day },
    'end_time',
    `end_time must be greater than start_time (${nowS - day}), got ${nowS - day}`,
  ],
  [
    'describe_vod_played_top_data',
    { ...stats, order_type: 5, end_time: undefined },
    'end_time',
    'end_time is required',
  ],
  ['describe_vod_played_static_data', { ...stats, vid_list: ids(100), order_type: 1 }, undefined],
  ['describe_vod_played_static_data', { ...stats, vid_list: ['v1'], app_id_list: ids(20), order_type: 4 }, undefined],
  [
    'describe_vod_played_static_data',
    { ...stats, vid_list: ids(101), order_type: 1 },
    'vid_list',
    'vid_list must have at most 100 entries, got 101',
  ],
  [
    'describe_vod_played_static_data',
    { ...stats, vid_list: [], order_type: 1 },
    'vid_list',
    'vid_list must have at least 1 entry',
  ],
  [
    'describe_vod_played_static_data',
    { ...stats, vid_list: ['v1'], app_id_list: ids(21), order_type: 1 },
    'app_id_list',
    'app_id_list must have at most 20 entries, got 21',
  ],
  ['describe_vod_played_static_data', { ...stats, vid_list: ['v1'], app_id_list: [], order_type: 1 }, undefined],
  [
    'describe_vod_played_static_data',
    { ...stats, vid_list: ['v1'], order_type: 5 },
    'order_type',
    'order_type must be one of 1, 2, 3, 4, got 5',
  ],
  [
    'describe_vod_played_static_data',
    { ...stats, vid_list: ['v1'], order_type: 2, start_time: nowS - 40 * day },
    'start_time',
    'within the last 30 days',
  ],
  [
    'describe_vod_played_static_data',
    { vid_list: ['v1'], order_type: 2, start_time: nowS - day, end_time: nowS },
    'env_id',
  ],
];

describe('validateRequest', () => {
  it.each(table)('%s %j → %s', (operation, body, field, fragment) => {
    const issue = validateRequest(operation, body, { now: NOW });
    if (field === undefined) {
      expect(issue).toBeUndefined();
      return;
    }
    expect(issue?.field).toBe(field);
    if (fragment !== undefined) expect(issue?.message).toContain(fragment);
  });

  it('covers all nine operations', () => {
    expect(new Set(table.map(([op]) => op))).toEqual(new Set(OPERATIONS));
    expect(OPERATIONS).toContain('get_work_flow_exection');
  });

  it('returns the value it refused', () => {
    expect(validateRequest('get_video_list', { page_size: 50, page_number: 0 })).toEqual({
      field: 'page_size',
      value: 50,
      message: 'page_size must be at most 20, got 50',
    });
  });

  it('refuses an unknown operation', () => {
    expect(validateRequest('get_work_flow_execution' as Operation, {})?.field).toBe('operation');
  });

  it('uses the real time when no now is given', () => {
    const start = Math.floor(Date.now() / 1000) - 60;
    expect(
      validateRequest('describe_vod_played_top_data', {
        env_id: 'e',
        order_type: 5,
        start_time: start,
        end_time: start + 30,
      }),
    ).toBeUndefined();
  });
});
