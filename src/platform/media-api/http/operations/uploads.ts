/**
 * The two upload operations: upload_video_by_urls queues jobs (run by ../../jobs/upload-jobs.ts)
 * and get_upload_job_info reports them.
 */
import { nowMs } from '../../context.js';
import { newId } from '../../state/ids.js';
import type { JobRecord } from '../../state/state.js';
import { enqueueUpload } from '../../jobs/upload-jobs.js';
import { jobView, sourceInfo } from '../../state/views.js';
import type { OperationHandler } from './shared.js';

/** upload_video_by_urls: one queued job per entry, answered at once with the job ids. */
export const uploadVideoByUrls: OperationHandler = (ctx, body, caller) => {
  const sets = body['url_sets'] as { source_url: string; file_name: string }[];
  const requestId = newId('req');
  const now = nowMs(ctx);
  const jobs: JobRecord[] = sets.map((set) => ({
    jobId: newId('job'),
    requestId,
    appid: caller.appid,
    sourceUrl: set.source_url,
    fileName: set.file_name,
    state: 'init',
    createdAt: now,
    updatedAt: now,
  }));
  for (const job of jobs) ctx.store.state.jobs[job.jobId] = job;
  ctx.store.changed();
  for (const job of jobs) enqueueUpload(ctx, job.jobId);
  return { data: { url_jobs: jobs.map((job) => ({ source_url: job.sourceUrl, job_id: job.jobId })) } };
};

/**
 * get_upload_job_info: the caller's jobs by id; ids it does not know (or of another
 * mini-program) are listed in `not_exist_job_ids`. When one job was asked and it succeeded, its
 * `source_info` is also given directly under `data`, as the platform contract (Media API) lists
 * it there too.
 */
export const getUploadJobInfo: OperationHandler = (ctx, body, caller) => {
  const ids = body['job_ids'] as string[];
  const { jobs, videos } = ctx.store.state;
  const found = ids
    .map((id) => jobs[id])
    .filter((job): job is JobRecord => job !== undefined && job.appid === caller.appid);
  const missing = ids.filter((id) => jobs[id] === undefined || jobs[id].appid !== caller.appid);
  const data: Record<string, unknown> = {
    video_infos: found.map((job) => jobView(job, job.vid === undefined ? undefined : videos[job.vid])),
    not_exist_job_ids: missing,
  };
  const only = found.length === 1 ? found[0] : undefined;
  const video = only?.state === 'success' && only.vid !== undefined ? videos[only.vid] : undefined;
  if (video !== undefined) data['source_info'] = sourceInfo(video);
  return { data };
};
