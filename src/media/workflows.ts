/**
 * The waiting workflows: `uploadAndWait` (submit URLs, then poll their upload jobs) and
 * `transcodeAndWait` (start a transcode, then poll its run), both through `poll()` (poll.ts).
 */
import type { CallOptions } from './call-options.js';
import { createMediaError, type MediaError, MediaValidationError } from './errors.js';
import { chunks, type HelperContext, wholeListError } from './helper-context.js';
import { poll, type WaitOptions } from './poll.js';
import { JobState, RunStatus } from './types.js';
import type { GetUploadJobInfoResponse, SourceInfo, TransCodeType, UrlSet } from './types.js';
import { MAX_JOB_IDS, MAX_URL_SETS, validateRequest } from './validate.js';

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
    if (issue !== undefined) throw wholeListError('upload_video_by_urls', issue, 'url_sets', g * MAX_URL_SETS);
  }
  const callOptions: CallOptions = options.signal === undefined ? {} : { signal: options.signal };
  const outcomes: UploadOutcome[] = new Array(urlSets.length);
  const pending = new Map<string, PendingJob>();
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

  if (pending.size === 0) return outcomes;
  return poll({
    clock,
    operation: 'get_upload_job_info',
    options,
    round: async () => {
      for (const ids of chunks([...pending.keys()], MAX_JOB_IDS))
        settle(await call('get_upload_job_info', { job_ids: ids }, callOptions), pending, outcomes, urlSets);
      return pending.size === 0 ? outcomes : undefined;
    },
    timedOut: (timeoutMs) => {
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
      return outcomes;
    },
  });
}

/** An upload job still polled: where its URL is in the caller's list, and its last state. */
interface PendingJob {
  index: number;
  state: JobState | undefined;
}

/** Records the jobs of one answer that have ended, and takes them off `pending`. */
function settle(
  info: GetUploadJobInfoResponse,
  pending: Map<string, PendingJob>,
  outcomes: UploadOutcome[],
  urlSets: readonly UrlSet[],
): void {
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
  let lastSeen = '';
  return poll({
    clock,
    operation: 'get_work_flow_exection',
    options,
    round: async () => {
      const state = await call('get_work_flow_exection', { run_id }, callOptions);
      lastSeen = `run_status ${state.run_status} ${state.run_status_msg}`.trim();
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
      return undefined;
    },
    timedOut: (timeoutMs) => {
      throw createMediaError(
        'MEDIA_WAIT_TIMEOUT',
        { operation: 'get_work_flow_exection' },
        `transcoding of vid ${vid} (run ${run_id})`,
        timeoutMs,
        lastSeen,
      );
    },
  });
}
