/**
 * `createMediaClient`: the nine operations of docs/platform-contract.md#media-api as typed
 * methods, plus the helpers.
 */
import { MediaCaller } from './call.js';
import type { CallOptions } from './call-options.js';
import type { HelperContext } from './helper-context.js';
import { type ListVideosFilter, listVideos } from './list-videos.js';
import {
  getPlayStats,
  getPlayTotals,
  type PlayStatsRequest,
  type PlayStatsResult,
  type PlayTotals,
} from './play-stats.js';
import type { WaitOptions } from './poll.js';
import { type TranscodeOutcome, transcodeAndWait, type UploadOutcome, uploadAndWait } from './workflows.js';
import { resolveMediaOptions } from './options.js';
import type { MediaClientOptions } from './options.js';
import type {
  DeleteVideoRequest,
  DeleteVideoResponse,
  DescribeVodPlayedStaticDataRequest,
  DescribeVodPlayedStaticDataResponse,
  DescribeVodPlayedTopDataRequest,
  DescribeVodPlayedTopDataResponse,
  GetUploadJobInfoRequest,
  GetUploadJobInfoResponse,
  GetVideoByVidRequest,
  GetVideoByVidResponse,
  GetVideoListRequest,
  GetVideoListResponse,
  GetWorkFlowExecutionRequest,
  GetWorkFlowExecutionResponse,
  OpenVideoModel,
  Operation,
  RequestOf,
  ResponseOf,
  StartWorkFlowRequest,
  StartWorkFlowResponse,
  TransCodeType,
  UploadVideoByUrlsRequest,
  UploadVideoByUrlsResponse,
  UrlSet,
} from './types.js';

/** `env_id` may be left out when the client has a default `envId`. */
type WithEnvId<T extends { env_id: string }> = Omit<T, 'env_id'> & { env_id?: string };

/** The media client. Every method validates first, then POSTs `/api/cloud_voc/<operation>`. */
export interface MediaClient {
  /** `get_video_list`: one page of videos. */
  getVideoList(request: GetVideoListRequest, options?: CallOptions): Promise<GetVideoListResponse>;
  /** `delete_video`: never retried once it may have reached the platform. */
  deleteVideo(request: WithEnvId<DeleteVideoRequest>, options?: CallOptions): Promise<DeleteVideoResponse>;
  /** `get_video_by_vid`: playable links of a transcoded video. */
  getVideoByVid(request: GetVideoByVidRequest, options?: CallOptions): Promise<GetVideoByVidResponse>;
  /** `upload_video_by_urls`: 1 to 20 URLs; never retried once it may have reached the platform. */
  uploadVideoByUrls(request: UploadVideoByUrlsRequest, options?: CallOptions): Promise<UploadVideoByUrlsResponse>;
  /** `get_upload_job_info`: state of 1 to 20 upload jobs. */
  getUploadJobInfo(request: GetUploadJobInfoRequest, options?: CallOptions): Promise<GetUploadJobInfoResponse>;
  /** `start_work_flow`: starts a transcode; rate-limited; never retried once it may have reached the platform. */
  startWorkFlow(request: StartWorkFlowRequest, options?: CallOptions): Promise<StartWorkFlowResponse>;
  /** `get_work_flow_exection` (spelled so on the wire): state of a transcode. */
  getWorkFlowExecution(
    request: GetWorkFlowExecutionRequest,
    options?: CallOptions,
  ): Promise<GetWorkFlowExecutionResponse>;
  /** `describe_vod_played_top_data`: top 100 videos by plays or traffic; rate-limited. */
  describeVodPlayedTopData(
    request: WithEnvId<DescribeVodPlayedTopDataRequest>,
    options?: CallOptions,
  ): Promise<DescribeVodPlayedTopDataResponse>;
  /** `describe_vod_played_static_data`: plays and traffic of up to 100 videos; rate-limited. */
  describeVodPlayedStaticData(
    request: WithEnvId<DescribeVodPlayedStaticDataRequest>,
    options?: CallOptions,
  ): Promise<DescribeVodPlayedStaticDataResponse>;
  /** Any operation by its wire name. */
  call<O extends Operation>(operation: O, request: RequestOf<O>, options?: CallOptions): Promise<ResponseOf<O>>;

  /** Every matching video, across pages. */
  listVideos(filter?: ListVideosFilter, options?: CallOptions): AsyncGenerator<OpenVideoModel, void, undefined>;
  /** Uploads any number of URLs and waits for each job; one outcome per URL, in order. */
  uploadAndWait(urlSets: readonly UrlSet[], options?: WaitOptions): Promise<UploadOutcome[]>;
  /** Starts a transcode and waits for run_status 10 (rejects on 9 or timeout). */
  transcodeAndWait(vid: string, type?: TransCodeType, options?: WaitOptions): Promise<TranscodeOutcome>;
  /** `describe_vod_played_static_data` over a vid_list of any length, merged. */
  getPlayStats(request: PlayStatsRequest, options?: CallOptions): Promise<PlayStatsResult>;
  /** Plays and traffic per vid over a vid_list of any length, summed over mini-programs. */
  getPlayTotals(request: PlayStatsRequest, options?: CallOptions): Promise<Map<string, PlayTotals>>;

  /**
   * The same client (token cache, rate limiter) with per-call defaults, typically the request's
   * `service` as logger and `service.signal`, so every call of one request logs with its logid
   * and stops when the function times out.
   * @example const m = media.scoped({ logger: service, signal: service.signal })
   */
  scoped(defaults: CallOptions): MediaClient;

  /**
   * The same client (token cache, rate limiter, the provider's private key and key_version)
   * acting for one mini-program: calls are signed with `appid` and answers verified with its
   * platform key. start_work_flow's limit counts per mini-program, the others per provider.
   * @example
   * const media = createMediaClient({ signing: { privateKey, keyVersion: '1' }, platformKeys: createPlatformKeyStore({ dir: 'keys/platform' }) })
   * const videos = await media.forApp('wx123').getVideoList({ page_size: 20, page_number: 0 })
   */
  forApp(appid: string): MediaClient;
}

/**
 * Creates a media client. Options not given are read from `CLOUDFN_MEDIA_*` env vars (see
 * docs/media.md); a bad option throws a MediaError (MEDIA_OPTIONS) at once. Create it once per
 * module so its token cache and rate limiter serve every request.
 * @example
 * import { createMediaClient } from 'cloudfn/media';
 * const media = createMediaClient(); // configured by CLOUDFN_MEDIA_* env vars
 * export default async function (params, service) {
 *   const { data, total_num } = await media.scoped({ logger: service, signal: service.signal }).getVideoList({ page_size: 20, page_number: 0 });
 *   return { total_num, vids: (data ?? []).map((v) => v.vid) };
 * }
 */
export function createMediaClient(options: MediaClientOptions = {}): MediaClient {
  const resolved = resolveMediaOptions(options);
  return bind(new MediaCaller(resolved), {});
}

/** The client's methods over one caller, with `defaults` under every call's options. */
function bind(caller: MediaCaller, defaults: CallOptions): MediaClient {
  const resolved = caller.options;
  const call = <O extends Operation>(
    operation: O,
    request: RequestOf<O>,
    callOptions?: CallOptions,
  ): Promise<ResponseOf<O>> =>
    caller.call(operation, request, callOptions === undefined ? defaults : { ...defaults, ...callOptions });
  const context: HelperContext = { call, clock: resolved.clock, envId: resolved.envId };
  const wait = (o: WaitOptions | undefined): WaitOptions =>
    defaults.signal === undefined || o?.signal !== undefined ? (o ?? {}) : { ...o, signal: defaults.signal };
  // env_id is filled from the client's envId inside `call`, so these casts only relax the type.
  const loose =
    <O extends Operation>(operation: O) =>
    (request: unknown, callOptions?: CallOptions) =>
      call(operation, request as RequestOf<O>, callOptions);
  return {
    getVideoList: (request, o) => call('get_video_list', request, o),
    deleteVideo: loose('delete_video'),
    getVideoByVid: (request, o) => call('get_video_by_vid', request, o),
    uploadVideoByUrls: (request, o) => call('upload_video_by_urls', request, o),
    getUploadJobInfo: (request, o) => call('get_upload_job_info', request, o),
    startWorkFlow: (request, o) => call('start_work_flow', request, o),
    getWorkFlowExecution: (request, o) => call('get_work_flow_exection', request, o),
    describeVodPlayedTopData: loose('describe_vod_played_top_data'),
    describeVodPlayedStaticData: loose('describe_vod_played_static_data'),
    call,
    listVideos: (filter, o) => listVideos(context, filter, o),
    uploadAndWait: (urlSets, o) => uploadAndWait(context, urlSets, wait(o)),
    transcodeAndWait: (vid, type, o) => transcodeAndWait(context, vid, type, wait(o)),
    getPlayStats: (request, o) => getPlayStats(context, request, o),
    getPlayTotals: (request, o) => getPlayTotals(context, request, o),
    scoped: (more) => bind(caller, { ...defaults, ...more }),
    forApp: (appid) => {
      if (typeof appid !== 'string' || appid === '')
        throw new TypeError(`forApp needs a mini-program's appid, got ${JSON.stringify(appid)}`);
      return bind(caller, { ...defaults, appid });
    },
  };
}
