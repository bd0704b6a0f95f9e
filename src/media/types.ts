/**
 * The wire types of docs/platform-contract.md#media-api (media asset management API), field for
 * field. Names keep the documented snake_case so the contract maps one to one onto code.
 * Response types are the *normalized* bodies the client resolves with (`err_no`/`total_num`
 * numbers, `file_type` a list); `Wire*` types describe what the platform may really send
 * (samples mix strings and numbers). The emulator (src/platform) sends and the client accepts
 * both.
 */

/**
 * The nine operations, spelled exactly as on the wire (`get_work_flow_exection` included).
 * @example for (const op of OPERATIONS) router.post(`/api/cloud_voc/${op}`, handle(op))
 */
export const OPERATIONS = [
  'get_video_list',
  'delete_video',
  'get_video_by_vid',
  'upload_video_by_urls',
  'get_upload_job_info',
  'start_work_flow',
  'get_work_flow_exection',
  'describe_vod_played_top_data',
  'describe_vod_played_static_data',
] as const;

/** One wire operation name; the request path is `/api/cloud_voc/<operation>`. */
export type Operation = (typeof OPERATIONS)[number];

/**
 * Path prefix of every operation (platform contract, Media API).
 * @example `${baseUrl}${API_PREFIX}get_video_list`
 */
export const API_PREFIX = '/api/cloud_voc/';

/**
 * The three operations with a documented rate of 20 per second (platform contract, Media API).
 * @example RATE_LIMITED_OPERATIONS.includes('start_work_flow') // true
 */
export const RATE_LIMITED_OPERATIONS: readonly Operation[] = [
  'start_work_flow',
  'describe_vod_played_top_data',
  'describe_vod_played_static_data',
];

// ---------------------------------------------------------------- enumerations

/**
 * Review status of a video: 98 under review, 99 not reviewed.
 * @example media.listVideos({ business_status: BusinessStatus.NOT_REVIEWED })
 */
export const BusinessStatus = { UNDER_REVIEW: 98, NOT_REVIEWED: 99 } as const;
export type BusinessStatus = (typeof BusinessStatus)[keyof typeof BusinessStatus];

/**
 * Transcoding status of a video: 1 not transcoded, 2 transcoding, 3 failed, 4 succeeded.
 * @example if (video.trans_code_status === TransCodeStatus.SUCCEEDED) await media.getVideoByVid({ vid: video.vid })
 */
export const TransCodeStatus = { NOT_TRANSCODED: 1, TRANSCODING: 2, FAILED: 3, SUCCEEDED: 4 } as const;
export type TransCodeStatus = (typeof TransCodeStatus)[keyof typeof TransCodeStatus];

/**
 * Where a video came from: 1 console upload, 2 cloud open-API upload, 3 industry-side sync.
 * @example video.source_type === SourceType.OPEN_API_UPLOAD
 */
export const SourceType = { CONSOLE_UPLOAD: 1, OPEN_API_UPLOAD: 2, INDUSTRY_SYNC: 3 } as const;
export type SourceType = (typeof SourceType)[keyof typeof SourceType];

/**
 * State of an upload job. `success` and `fail` are final.
 * @example if (info.state === JobState.SUCCESS) return info.vid
 */
export const JobState = { INIT: 'init', PROCESS: 'process', SUCCESS: 'success', FAIL: 'fail' } as const;
export type JobState = (typeof JobState)[keyof typeof JobState];

/**
 * State of a transcoding task: 1 not transcoded, 2 transcoding, 9 failed, 10 succeeded (final).
 * @example const done = run.run_status === RunStatus.SUCCEEDED || run.run_status === RunStatus.FAILED
 */
export const RunStatus = { NOT_TRANSCODED: 1, TRANSCODING: 2, FAILED: 9, SUCCEEDED: 10 } as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/**
 * Transcoding template: '3' MP4 720P H264, '4' MP4 720P H265, '5' HLS 720P H264.
 * @example media.startWorkFlow({ vid, trans_code_type: TransCodeType.HLS_720P_H264 })
 */
export const TransCodeType = { MP4_720P_H264: '3', MP4_720P_H265: '4', HLS_720P_H264: '5' } as const;
export type TransCodeType = (typeof TransCodeType)[keyof typeof TransCodeType];

/**
 * Order of `describe_vod_played_static_data`: play count or traffic, ascending or descending.
 * @example media.getPlayStats({ vid_list, order_type: StaticOrderType.PLAY_COUNT_DESC, start_time, end_time })
 */
export const StaticOrderType = {
  PLAY_COUNT_ASC: 1,
  PLAY_COUNT_DESC: 2,
  TRAFFIC_ASC: 3,
  TRAFFIC_DESC: 4,
} as const;
export type StaticOrderType = (typeof StaticOrderType)[keyof typeof StaticOrderType];

/**
 * Order of `describe_vod_played_top_data`: 5 by play count, 6 by traffic, both descending.
 * @example media.describeVodPlayedTopData({ order_type: TopOrderType.TRAFFIC_DESC, start_time, end_time })
 */
export const TopOrderType = { PLAY_COUNT_DESC: 5, TRAFFIC_DESC: 6 } as const;
export type TopOrderType = (typeof TopOrderType)[keyof typeof TopOrderType];

/** The file kinds `source_info.file_type` may list. */
export type FileType = 'video' | 'audio' | (string & {});

// ---------------------------------------------------------------- error codes

/**
 * The documented `err_no` values (platform contract, Media API). 0 means success.
 * @example if (error instanceof MediaApiError && error.errNo === MediaErrNo.VIDEO_NOT_EXIST) return null
 */
export const MediaErrNo = {
  SUCCESS: 0,
  /** HTTP 400: the operating user is outside the contacts permission scope. */
  NO_USER_AUTHORITY: 41050,
  /** HTTP 400: bad parameters. */
  PARAM_ERROR: 40001,
  /** Body-level: input params is invalid. */
  INPUT_PARAMS_INVALID: 401001,
  /** Body-level: space not exist. */
  SPACE_NOT_EXIST: 401002,
  /** Body-level: video not exist. */
  VIDEO_NOT_EXIST: 401003,
} as const;
export type MediaErrNo = (typeof MediaErrNo)[keyof typeof MediaErrNo];

/**
 * The documented `err_msg` text of each known code.
 * @example MEDIA_ERR_MSG[MediaErrNo.PARAM_ERROR] // 'param error'
 */
export const MEDIA_ERR_MSG: Readonly<Record<number, string>> = {
  41050: 'no user authority error',
  40001: 'param error',
  401001: 'input params is invalid',
  401002: 'space not exist',
  401003: 'video not exist',
};

// ---------------------------------------------------------------- resources

/** One entry of the video list. */
export interface OpenVideoModel {
  video_name: string;
  vid: string;
  /** Bytes. */
  size: number;
  /** Upload time (integer timestamp). */
  upload_time: number;
  business_status: BusinessStatus;
  trans_code_status?: TransCodeStatus;
  source_type?: SourceType;
  /** Industry-side video id. */
  video_open_id?: string;
}

/** One entry of the playable-link response. */
export interface PlaybackItem {
  format: string;
  main_play_url: string;
  back_up_play_url: string;
  main_url_expire: string;
  back_url_expire: string;
  definition: string;
  bitrate: number;
  codec: string;
  size: number;
  /** When true, only `main_play_url` and `main_url_expire` can be trusted. */
  is_demote?: boolean;
  is_original?: boolean;
}

/** A source to upload: the URL of the video file itself (http or https) and a name without extension. */
export interface UrlSet {
  source_url: string;
  file_name: string;
}

/** The job created for one source URL. */
export interface UrlJob {
  source_url: string;
  job_id: string;
}

/** Details of an uploaded file. `file_type` is always a list once normalized. */
export interface SourceInfo {
  md5?: string;
  file_type?: FileType[];
  height?: number;
  width?: number;
  format?: string;
  /** Seconds. */
  duration?: number;
  /** Bytes. */
  size?: number;
  /** Kbps. */
  bitrate?: number;
  /** Seen in samples, not in the field list. */
  store_uri?: string;
  /** Seen in samples, not in the field list. */
  file_path?: string;
}

/** `SourceInfo` as sent: `file_type` may be a single string. */
export interface WireSourceInfo extends Omit<SourceInfo, 'file_type'> {
  file_type?: FileType[] | FileType;
}

/** One entry of `video_infos`: the state of one upload job. */
export interface VideoUrlSet {
  request_id: string;
  job_id: string;
  source_url: string;
  state: JobState;
  /** Present once the upload succeeded. */
  vid?: string;
  source_info?: SourceInfo;
}

/** Play statistics of one video (per mini-program when `app_id_list` was given). */
export interface PlayStatInfo {
  vid: string;
  /** Empty when the query named no mini-programs. */
  app_id: string;
  name: string;
  size: number;
  duration: number;
  create_time: string;
  play_count: number;
  /** Bytes. */
  traffic: number;
}

// ---------------------------------------------------------------- envelope

/** The common envelope, normalized: `err_no` a number, `err_msg` a string. */
export interface MediaEnvelope {
  /** 0 on success. Declared string, samples send numbers; always a number here. */
  err_no: number;
  /** Declared int, samples send text; always a string here. */
  err_msg: string;
  /** Declared string or bool; present on most operations. */
  log_id?: string;
}

/** The envelope as the platform may send it (platform contract, Media API). */
export interface WireEnvelope {
  err_no: number | string;
  err_msg: string | number;
  log_id?: string | boolean;
  data?: unknown;
}

// ---------------------------------------------------------------- requests

export interface GetVideoListRequest {
  /** Items per page, 1 to 20. */
  page_size: number;
  /** From 0. */
  page_number: number;
  /** 98 or 99; omitted returns both. */
  business_status?: BusinessStatus;
  video_name?: string;
  /** A sample sends it though the parameter list does not name it. */
  env_id?: string;
}

export interface DeleteVideoRequest {
  vid: string;
  env_id: string;
}

export interface GetVideoByVidRequest {
  vid: string;
  domain?: string;
  /** Link lifetime in seconds, 3600 to 1209600. @default 3600 */
  expire_time?: number;
}

export interface UploadVideoByUrlsRequest {
  /** 1 to 20 entries. */
  url_sets: UrlSet[];
}

export interface GetUploadJobInfoRequest {
  /** 1 to 20 job ids. */
  job_ids: string[];
}

export interface StartWorkFlowRequest {
  vid: string;
  trans_code_type?: TransCodeType;
}

export interface GetWorkFlowExecutionRequest {
  run_id: string;
}

export interface DescribeVodPlayedTopDataRequest {
  env_id: string;
  order_type: TopOrderType;
  /** Timestamp in seconds within the last 30 days; samples send it as text. */
  start_time: number | string;
  /** Timestamp in seconds, greater than `start_time`. */
  end_time: number | string;
}

export interface DescribeVodPlayedStaticDataRequest {
  env_id: string;
  /** 1 to 100 video ids (the client's statistics helpers split longer lists). */
  vid_list: string[];
  /** At most 20; when given, data is split per mini-program. */
  app_id_list?: string[];
  order_type: StaticOrderType;
  start_time: number | string;
  end_time: number | string;
}

// ---------------------------------------------------------------- responses

export interface GetVideoListResponse extends MediaEnvelope {
  /** Total number matched. Declared string, samples numeric; always a number here. */
  total_num: number;
  data?: OpenVideoModel[] | null;
}

export type DeleteVideoResponse = MediaEnvelope;

export interface GetVideoByVidResponse extends MediaEnvelope {
  data?: PlaybackItem[] | null;
}

export interface UploadVideoByUrlsResponse extends MediaEnvelope {
  data?: { url_jobs?: UrlJob[] } | null;
}

export interface GetUploadJobInfoResponse extends MediaEnvelope {
  data?: {
    video_infos?: VideoUrlSet[];
    not_exist_job_ids?: string[];
    /** The platform contract (Media API) lists SourceInfo directly under this object too. */
    source_info?: SourceInfo;
  } | null;
}

export interface StartWorkFlowResponse extends MediaEnvelope {
  /** Transcoding task id for `get_work_flow_exection`. */
  run_id: string;
}

export interface GetWorkFlowExecutionResponse extends MediaEnvelope {
  run_status: RunStatus;
  run_status_msg: string;
}

export interface DescribeVodPlayedTopDataResponse extends MediaEnvelope {
  play_static_infos: PlayStatInfo[];
}

export type DescribeVodPlayedStaticDataResponse = DescribeVodPlayedTopDataResponse;

/** Request body of each operation. */
export interface OperationRequests {
  get_video_list: GetVideoListRequest;
  delete_video: DeleteVideoRequest;
  get_video_by_vid: GetVideoByVidRequest;
  upload_video_by_urls: UploadVideoByUrlsRequest;
  get_upload_job_info: GetUploadJobInfoRequest;
  start_work_flow: StartWorkFlowRequest;
  get_work_flow_exection: GetWorkFlowExecutionRequest;
  describe_vod_played_top_data: DescribeVodPlayedTopDataRequest;
  describe_vod_played_static_data: DescribeVodPlayedStaticDataRequest;
}

/** Normalized response body of each operation. */
export interface OperationResponses {
  get_video_list: GetVideoListResponse;
  delete_video: DeleteVideoResponse;
  get_video_by_vid: GetVideoByVidResponse;
  upload_video_by_urls: UploadVideoByUrlsResponse;
  get_upload_job_info: GetUploadJobInfoResponse;
  start_work_flow: StartWorkFlowResponse;
  get_work_flow_exection: GetWorkFlowExecutionResponse;
  describe_vod_played_top_data: DescribeVodPlayedTopDataResponse;
  describe_vod_played_static_data: DescribeVodPlayedStaticDataResponse;
}

/** Request body of operation `O`. */
export type RequestOf<O extends Operation> = OperationRequests[O];
/** Normalized response body of operation `O`. */
export type ResponseOf<O extends Operation> = OperationResponses[O];
