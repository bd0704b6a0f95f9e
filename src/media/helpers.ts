/**
 * What people would otherwise write around the nine operations: paging, waiting for uploads
 * and transcodes, and statistics over more than 100 videos.
 */
import type { CallOptions } from './call.js';
import type { MediaClock } from './clock.js';
import { createMediaError } from './errors.js';
import type { MediaError } from './errors.js';
import { JobState, RunStatus } from './types.js';
import type {
  DescribeVodPlayedStaticDataRequest,
  DescribeVodPlayedStaticDataResponse,
  GetVideoListRequest,
  Operation,
  OpenVideoModel,
  PlayStatInfo,
  RequestOf,
  ResponseOf,
  SourceInfo,
  TransCodeType,
  UrlSet,
} from './types.js';
import { MAX_JOB_IDS, MAX_PAGE_SIZE, MAX_URL_SETS, MAX_VID_LIST, validateRequest } from './validate.js';
import { MediaValidationError } from './errors.js';

/** How helpers reach the platform. */
export type Call = <O extends Operation>(
  operation: O,
  request: RequestOf<O>,
  options?: CallOptions,
) => Promise<ResponseOf<O>>;

/** What the helpers share with their client. */
export interface HelperContext {
  call: Call;
  clock: MediaClock;
  /** The client's default env_id. */
  envId: string | undefined;
}

/** Filter of `listVideos`: `get_video_list` without paging (page_size defaults to 20). */
export type ListVideosFilter = Omit<GetVideoListRequest, 'page_number' | 'page_size'> & {
  page_size?: number;
  page_number?: number;
};

/**
 * Every video matching `filter`, page after page, until a short page or `total_num` is reached.
 * @example for await (const video of listVideos(context, { business_status: 99 })) console.log(video.vid)
 */
export async function* listVideos(
  { call }: HelperContext,
  filter: ListVideosFilter = {},
  options: CallOptions = {},
): AsyncGenerator<OpenVideoModel, void, undefined> {
  const page_size = filter.page_size ?? MAX_PAGE_SIZE;
  let page_number = filter.page_number ?? 0;
  let seen = 0;
  for (;;) {
    const page = await call('get_video_list', { ...filter, page_size, page_number }, options);
    const videos = page.data ?? [];
    for (const video of videos) yield video;
    seen += videos.length;
    // total_num 0 may mean "not sent", so only a positive total ends the walk early.
    if (videos.length < page_size || (page.total_num > 0 && seen >= page.total_num)) return;
    page_number++;
  }
}

/** Options of the waiting helpers. */
export interface WaitOptions {
  /** First wait between polls; it grows 1.5× per poll. @default 1000 */
  pollIntervalMs?: number;
  /** Longest wait between polls. @default 10000 */
  maxPollIntervalMs?: number;
  /** Give up after this long. @default 600000 (10 minutes) */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The outcome of one URL of `uploadAndWait`, in the order the URLs were given. */
export type UploadOutcome =
  | {
      ok: true;
      source_url: string;
      file_name: string;
      job_id: string;
      vid: string;
      source_info: SourceInfo | undefined;
    }
  | {
      ok: false;
      source_url: string;
      file_name: string;
      job_id: string | undefined;
      state: JobState | undefined;
      error: MediaError;
    };

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Uploads any number of URLs (20 per call), then polls `get_upload_job_info` with back-off
 * until each job succeeds or fails. Returns, per URL, the vid and source info or the failure;
 * only invalid input (nothing sent) or an abort rejects.
 * @example
 * const results = await uploadAndWait(context, [{ source_url: 'https://cdn.example.com/ep1.mp4', file_name: 'ep1' }])
 * for (const r of results) console.log(r.ok ? r.vid : r.error.message)
 */
export async function uploadAndWait(
  { call, clock }: HelperContext,
  urlSets: readonly UrlSet[],
  options: WaitOptions = {},
): Promise<UploadOutcome[]> {
  const groups = chunks(urlSets, MAX_URL_SETS);
  if (groups.length === 0)
    throw new MediaValidationError('upload_video_by_urls', {
      field: 'url_sets',
      value: [],
      message: 'url_sets must have at least 1 entry, got []',
    });
  for (const [g, group] of groups.entries()) {
    const issue = validateRequest('upload_video_by_urls', { url_sets: group });
    if (issue !== undefined) {
      const field = issue.field.replace(
        /^url_sets\[(\d+)\]/,
        (_, i: string) => `url_sets[${g * MAX_URL_SETS + Number(i)}]`,
      );
      throw new MediaValidationError('upload_video_by_urls', {
        ...issue,
        field,
        message: issue.message.replace(issue.field, field),
      });
    }
  }
  const callOptions: CallOptions = options.signal === undefined ? {} : { signal: options.signal };
  const outcomes: UploadOutcome[] = new Array(urlSets.length);
  const pending = new Map<string, { index: number; state: JobState | undefined }>();
  for (const [g, group] of groups.entries()) {
    let jobs: { source_url: string; job_id: string }[];
    try {
      jobs = [...((await call('upload_video_by_urls', { url_sets: group }, callOptions)).data?.url_jobs ?? [])];
    } catch (error) {
      if ((error as MediaError).code === 'MEDIA_ABORTED') throw error;
      group.forEach((set, i) => {
        outcomes[g * MAX_URL_SETS + i] = {
          ok: false,
          ...set,
          job_id: undefined,
          state: undefined,
          error: error as MediaError,
        };
      });
      continue;
    }
    group.forEach((set, i) => {
      // Jobs are matched by source_url; a URL given twice takes the jobs in order.
      const at = jobs.findIndex((job) => job.source_url === set.source_url);
      const index = g * MAX_URL_SETS + i;
      if (at === -1) {
        outcomes[index] = {
          ok: false,
          ...set,
          job_id: undefined,
          state: undefined,
          error: createMediaError(
            'MEDIA_BAD_RESPONSE',
            { operation: 'upload_video_by_urls' },
            'upload_video_by_urls',
            200,
            `no url_jobs entry for ${set.source_url}`,
          ),
        };
      } else {
        pending.set(jobs.splice(at, 1)[0]!.job_id, { index, state: undefined });
      }
    });
  }

  const timeoutMs = options.timeoutMs ?? 600_000;
  const deadline = clock.now() + timeoutMs;
  let interval = options.pollIntervalMs ?? 1000;
  while (pending.size > 0) {
    for (const ids of chunks([...pending.keys()], MAX_JOB_IDS)) {
      const info = await call('get_upload_job_info', { job_ids: ids }, callOptions);
      for (const job of info.data?.video_infos ?? []) {
        const entry = pending.get(job.job_id);
        if (entry === undefined) continue;
        const set = urlSets[entry.index]!;
        entry.state = job.state;
        if (job.state === JobState.SUCCESS && job.vid !== undefined) {
          outcomes[entry.index] = { ok: true, ...set, job_id: job.job_id, vid: job.vid, source_info: job.source_info };
          pending.delete(job.job_id);
        } else if (job.state === JobState.FAIL) {
          const error = createMediaError(
            'MEDIA_UPLOAD_FAILED',
            { operation: 'get_upload_job_info' },
            set.source_url,
            `job ${job.job_id} ended in state fail`,
            info.log_id,
          );
          outcomes[entry.index] = { ok: false, ...set, job_id: job.job_id, state: JobState.FAIL, error };
          pending.delete(job.job_id);
        }
      }
      for (const id of info.data?.not_exist_job_ids ?? []) {
        const entry = pending.get(id);
        if (entry === undefined) continue;
        const error = createMediaError(
          'MEDIA_UPLOAD_FAILED',
          { operation: 'get_upload_job_info' },
          urlSets[entry.index]!.source_url,
          `job ${id} is unknown to the platform (not_exist_job_ids)`,
          info.log_id,
        );
        outcomes[entry.index] = { ok: false, ...urlSets[entry.index]!, job_id: id, state: undefined, error };
        pending.delete(id);
      }
    }
    if (pending.size === 0) break;
    const left = deadline - clock.now();
    if (left <= 0) {
      for (const [id, entry] of pending) {
        const set = urlSets[entry.index]!;
        const error = createMediaError(
          'MEDIA_WAIT_TIMEOUT',
          { operation: 'get_upload_job_info' },
          `upload job ${id} of ${set.source_url}`,
          timeoutMs,
          `state ${entry.state ?? 'unknown'}`,
        );
        outcomes[entry.index] = { ok: false, ...set, job_id: id, state: entry.state, error };
      }
      break;
    }
    await sleep(clock, Math.min(interval, left), options.signal, 'get_upload_job_info');
    interval = Math.min(interval * 1.5, options.maxPollIntervalMs ?? 10_000);
  }
  return outcomes;
}

/** The end of a transcode: run_status 10. */
export interface TranscodeOutcome {
  run_id: string;
  run_status: RunStatus;
  run_status_msg: string;
  log_id: string | undefined;
}

/**
 * Starts transcoding `vid` and polls `get_work_flow_exection` until run_status 10 (resolves)
 * or 9 (rejects with MEDIA_TRANSCODE_FAILED); MEDIA_WAIT_TIMEOUT after `timeoutMs`.
 * @example const { run_id } = await transcodeAndWait(context, 'v0d00fg10000', '5')
 */
export async function transcodeAndWait(
  { call, clock }: HelperContext,
  vid: string,
  type: TransCodeType | undefined,
  options: WaitOptions = {},
): Promise<TranscodeOutcome> {
  const callOptions: CallOptions = options.signal === undefined ? {} : { signal: options.signal };
  const started = await call(
    'start_work_flow',
    type === undefined ? { vid } : { vid, trans_code_type: type },
    callOptions,
  );
  const run_id = started.run_id;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const deadline = clock.now() + timeoutMs;
  let interval = options.pollIntervalMs ?? 1000;
  for (;;) {
    const state = await call('get_work_flow_exection', { run_id }, callOptions);
    if (state.run_status === RunStatus.SUCCEEDED)
      return { run_id, run_status: state.run_status, run_status_msg: state.run_status_msg, log_id: state.log_id };
    if (state.run_status === RunStatus.FAILED)
      throw createMediaError(
        'MEDIA_TRANSCODE_FAILED',
        { operation: 'get_work_flow_exection' },
        vid,
        run_id,
        state.run_status_msg,
      );
    const left = deadline - clock.now();
    if (left <= 0)
      throw createMediaError(
        'MEDIA_WAIT_TIMEOUT',
        { operation: 'get_work_flow_exection' },
        `transcoding of vid ${vid} (run ${run_id})`,
        timeoutMs,
        `run_status ${state.run_status} ${state.run_status_msg}`.trim(),
      );
    await sleep(clock, Math.min(interval, left), options.signal, 'get_work_flow_exection');
    interval = Math.min(interval * 1.5, options.maxPollIntervalMs ?? 10_000);
  }
}

async function sleep(clock: MediaClock, ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    const reason = signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason ?? error);
    throw createMediaError('MEDIA_ABORTED', { operation, cause: error }, operation, reason);
  }
}

/** `describe_vod_played_static_data` with a `vid_list` of any length. */
export type PlayStatsRequest = Omit<DescribeVodPlayedStaticDataRequest, 'env_id'> & { env_id?: string };

/** Merged statistics: every chunk's rows in one list, and every chunk's log_id. */
export interface PlayStatsResult extends DescribeVodPlayedStaticDataResponse {
  log_ids: string[];
}

const ORDER: Record<number, (a: PlayStatInfo, b: PlayStatInfo) => number> = {
  1: (a, b) => a.play_count - b.play_count,
  2: (a, b) => b.play_count - a.play_count,
  3: (a, b) => a.traffic - b.traffic,
  4: (a, b) => b.traffic - a.traffic,
};

/**
 * Splits `vid_list` into calls of 100, runs them (the rate limiter paces them), and merges the
 * rows, sorted again by `order_type` across chunks.
 * @example const { play_static_infos } = await getPlayStats(context, { vid_list, order_type: 2, start_time, end_time })
 */
export async function getPlayStats(
  { call, clock, envId }: HelperContext,
  request: PlayStatsRequest,
  options: CallOptions = {},
): Promise<PlayStatsResult> {
  const vids = request.vid_list;
  if (!Array.isArray(vids) || vids.length === 0) {
    throw new MediaValidationError('describe_vod_played_static_data', {
      field: 'vid_list',
      value: vids,
      message: `vid_list must have at least 1 entry, got ${JSON.stringify(vids)}`,
    });
  }
  const parts = chunks(vids, MAX_VID_LIST);
  // Every chunk is checked before the first is sent, so a bad request sends nothing.
  const env_id = request.env_id ?? envId;
  for (const [p, vid_list] of parts.entries()) {
    const issue = validateRequest(
      'describe_vod_played_static_data',
      { ...request, env_id, vid_list },
      { now: clock.now() },
    );
    if (issue !== undefined) {
      const field = issue.field.replace(
        /^vid_list\[(\d+)\]/,
        (_, i: string) => `vid_list[${p * MAX_VID_LIST + Number(i)}]`,
      );
      throw new MediaValidationError('describe_vod_played_static_data', {
        ...issue,
        field,
        message: issue.message.replace(issue.field, field),
      });
    }
  }
  const answers = await Promise.all(
    parts.map((vid_list) =>
      call('describe_vod_played_static_data', { ...request, vid_list } as DescribeVodPlayedStaticDataRequest, options),
    ),
  );
  const rows = answers.flatMap((answer) => answer.play_static_infos);
  const order = ORDER[request.order_type];
  if (order !== undefined && parts.length > 1) rows.sort(order);
  const log_ids = answers.map((a) => a.log_id).filter((id): id is string => id !== undefined);
  return {
    err_no: 0,
    err_msg: answers[0]?.err_msg ?? '',
    ...(log_ids[0] === undefined ? {} : { log_id: log_ids[0] }),
    play_static_infos: rows,
    log_ids,
  };
}

/** Plays and traffic of one video, summed over mini-programs. */
export interface PlayTotals {
  play_count: number;
  traffic: number;
}

/**
 * Plays and traffic per vid for a `vid_list` of any length, summed over the mini-programs of
 * `app_id_list` when one is given. Vids without data are absent from the map.
 * @example const totals = await getPlayTotals(context, { vid_list, order_type: 2, start_time, end_time }); totals.get(vid)?.play_count
 */
export async function getPlayTotals(
  context: HelperContext,
  request: PlayStatsRequest,
  options: CallOptions = {},
): Promise<Map<string, PlayTotals>> {
  const { play_static_infos } = await getPlayStats(context, request, options);
  const totals = new Map<string, PlayTotals>();
  for (const row of play_static_infos) {
    const total = totals.get(row.vid) ?? { play_count: 0, traffic: 0 };
    total.play_count += row.play_count;
    total.traffic += row.traffic;
    totals.set(row.vid, total);
  }
  return totals;
}
