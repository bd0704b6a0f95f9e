/**
 * The emulator's persistent records: everything a restart must keep. Media files live
 * beside `state.json` under `media/`; these records point at them by relative path.
 */

/** One playable file set: the original upload or a transcoded rendition. */
export interface MediaRecord {
  /** Path of the entry file (the MP4, or the HLS playlist) relative to the data folder. */
  file: string;
  /** `mp4`, `hls`, or the container ffprobe named for other originals. */
  format: string;
  width: number;
  height: number;
  /** Seconds. */
  duration: number;
  /** Kbps, as the platform contract (Media API) gives `source_info.bitrate`. */
  bitrate: number;
  /** `h264`, `h265`, ... as ffprobe names the video codec. */
  codec: string;
  /** Bytes; for HLS the playlist plus its segments. */
  size: number;
}

/** A video in media management. */
export interface VideoRecord {
  vid: string;
  /** The mini-program that uploaded it (the token's client_key). */
  appid: string;
  name: string;
  md5: string;
  sourceUrl: string;
  /** Unix seconds. */
  uploadTime: number;
  /** Unix milliseconds after which `business_status` reads 98 instead of 99. */
  reviewAt: number;
  /** source_type of the platform contract (Media API); 2 for open-API uploads. */
  sourceType: number;
  /** 1 not transcoded, 2 transcoding, 3 failed, 4 succeeded. */
  transCodeStatus: 1 | 2 | 3 | 4;
  /** ffprobe's `format_name`, kept for `source_info.format`. */
  fileTypes: string[];
  original: MediaRecord;
  /** Transcoded renditions by template ('3', '4', '5'). */
  renditions: Record<string, MediaRecord>;
}

/** Upload job states (platform contract, Media API). */
export type JobState = 'init' | 'process' | 'success' | 'fail';

/** One `upload_video_by_urls` entry. */
export interface JobRecord {
  jobId: string;
  requestId: string;
  appid: string;
  sourceUrl: string;
  fileName: string;
  state: JobState;
  vid?: string;
  /** Why the job failed, shown in the job's `fail_reason` and in the callback. */
  reason?: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * Transcoding run states (platform contract, Media API): 1 not transcoded, 2 transcoding,
 * 9 failed, 10 succeeded.
 */
export type RunStatus = 1 | 2 | 9 | 10;

/** One `start_work_flow` task. */
export interface RunRecord {
  runId: string;
  vid: string;
  appid: string;
  template: string;
  status: RunStatus;
  message: string;
  createdAt: number;
  updatedAt: number;
}

/** An issued access token. */
export interface TokenRecord {
  token: string;
  clientKey: string;
  /** Unix milliseconds. */
  expiresAt: number;
  /** When it was issued, Unix milliseconds (older states lack it: 0). */
  issuedAt?: number;
  /** When a newer token retired it, Unix milliseconds. */
  retiredAt?: number;
}

/** Plays and traffic of one video, seen through one app's links, within one minute. */
export interface PlayBucket {
  vid: string;
  appid: string;
  /** Unix seconds at the start of the minute. */
  minute: number;
  plays: number;
  traffic: number;
}

/** The whole of `state.json`. */
export interface PlatformState {
  version: 1;
  /** Secret that signs media links, so links stay valid across a restart. */
  linkSecret: string;
  videos: Record<string, VideoRecord>;
  jobs: Record<string, JobRecord>;
  runs: Record<string, RunRecord>;
  tokens: Record<string, TokenRecord>;
  plays: PlayBucket[];
}
