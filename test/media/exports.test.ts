/**
 * The names of `cloudfn/media`'s operations, and every media error code documented in the
 * media section of docs/errors.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as media from '../../src/media/index.js';

describe('cloudfn/media', () => {
  it('names the nine operations as documented', () => {
    expect(media.OPERATIONS).toEqual([
      'get_video_list',
      'delete_video',
      'get_video_by_vid',
      'upload_video_by_urls',
      'get_upload_job_info',
      'start_work_flow',
      'get_work_flow_exection',
      'describe_vod_played_top_data',
      'describe_vod_played_static_data',
    ]);
    expect(media.MediaErrNo).toMatchObject({
      NO_USER_AUTHORITY: 41050,
      PARAM_ERROR: 40001,
      INPUT_PARAMS_INVALID: 401001,
      SPACE_NOT_EXIST: 401002,
      VIDEO_NOT_EXIST: 401003,
    });
    expect(Object.values(media.RunStatus)).toEqual([1, 2, 9, 10]);
    expect(Object.values(media.TransCodeType)).toEqual(['3', '4', '5']);
  });

  it('documents every media error code in docs/errors.md', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const section = /<!-- media:begin -->([\s\S]*?)<!-- media:end -->/.exec(doc)?.[1] ?? '';
    const headings = [...section.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
    expect(headings.sort()).toEqual(Object.keys(media.mediaErrors).sort());
  });
});
