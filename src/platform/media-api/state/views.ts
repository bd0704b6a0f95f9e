/**
 * The wire shapes of docs/platform-contract.md#media-api, built from the emulator's records.
 * Types come from the media client (src/media/types.ts) so both sides agree field for field.
 */
import type { JobRecord, VideoRecord } from './state.js';
import type { OpenVideoModel, SourceInfo, VideoUrlSet } from '../../../media/types.js';

/**
 * `business_status` is derived from the clock rather than stored, so the 99 → 98 move after
 * the review delay needs no timer and survives a restart.
 * @example businessStatus(video, Date.now()) // 99 right after upload, 98 after reviewDelayMs
 */
export function businessStatus(video: VideoRecord, nowMs: number): 98 | 99 {
  return nowMs >= video.reviewAt ? 98 : 99;
}

/**
 * One entry of `get_video_list`.
 * @example videoModel(video, Date.now()).business_status
 */
export function videoModel(video: VideoRecord, nowMs: number): OpenVideoModel {
  return {
    video_name: video.name,
    vid: video.vid,
    size: video.original.size,
    upload_time: video.uploadTime,
    business_status: businessStatus(video, nowMs),
    trans_code_status: video.transCodeStatus,
    source_type: video.sourceType as OpenVideoModel['source_type'],
  };
}

/**
 * `source_info` of a finished upload; `store_uri` and `file_path` are the fields the samples
 * show, filled with the emulator's storage key and the file's path in the data folder.
 * @example sourceInfo(video).md5
 */
export function sourceInfo(video: VideoRecord): SourceInfo {
  const { original } = video;
  return {
    md5: video.md5,
    file_type: video.fileTypes,
    height: original.height,
    width: original.width,
    format: original.format,
    duration: original.duration,
    size: original.size,
    bitrate: original.bitrate,
    store_uri: `vod/${video.vid}/${original.file.split('/').pop() ?? ''}`,
    file_path: original.file,
  };
}

/**
 * One entry of `video_infos`. A failed job also carries `fail_reason`, a field the platform
 * contract does not list (clients ignore unknown fields), so a user can see why it failed.
 * @example jobView(job, videos[job.vid])
 */
export function jobView(job: JobRecord, video: VideoRecord | undefined): VideoUrlSet & { fail_reason?: string } {
  const view: VideoUrlSet & { fail_reason?: string } = {
    request_id: job.requestId,
    job_id: job.jobId,
    source_url: job.sourceUrl,
    state: job.state,
  };
  if (job.state === 'success' && job.vid !== undefined) {
    view.vid = job.vid;
    if (video !== undefined) view.source_info = sourceInfo(video);
  }
  if (job.state === 'fail' && job.reason !== undefined) view.fail_reason = job.reason;
  return view;
}
