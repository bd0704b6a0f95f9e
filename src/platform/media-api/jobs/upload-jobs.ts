/**
 * Upload jobs in the background: queues a job of `upload_video_by_urls`, downloads and
 * probes its source, stores the new video under `videoDir(vid)` (`media/<vid>`), sends
 * `upload.finished` and resumes unfinished jobs on start.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlatformContext } from '../context.js';
import { nowMs, nowSeconds } from '../context.js';
import { downloadSource } from './download.js';
import { probeMedia, type ProbeResult } from './ffmpeg.js';
import { sleep } from './job-queue.js';
import { newId } from '../state/ids.js';
import { sniffVideo } from './sniff.js';
import type { JobRecord, VideoRecord } from '../state/state.js';
import { jobView } from '../state/views.js';

const EXTENSIONS: Record<string, string> = {
  mp4: 'mp4',
  matroska: 'mkv',
  flv: 'flv',
  avi: 'avi',
  mpegts: 'ts',
  hls: 'm3u8',
};

/** Folder of a video's files, relative to the data folder. */
export function videoDir(vid: string): string {
  return `media/${vid}`;
}

/**
 * Queues an upload job: `init`, then `process` while the source downloads and is probed,
 * then `success` (a new video) or `fail` with a reason. Each step waits `jobDelayMs` first,
 * so a client can watch the states go by.
 * @example enqueueUpload(ctx, job)
 */
export function enqueueUpload(ctx: PlatformContext, jobId: string): void {
  ctx.queue.push((signal) => runUpload(ctx, jobId, signal));
}

function setState(
  ctx: PlatformContext,
  job: JobRecord,
  state: JobRecord['state'],
  extra: Partial<JobRecord> = {},
): void {
  Object.assign(job, extra, { state, updatedAt: nowMs(ctx) });
  ctx.store.changed();
}

async function runUpload(ctx: PlatformContext, jobId: string, signal: AbortSignal): Promise<void> {
  const job = ctx.store.state.jobs[jobId];
  if (job === undefined || job.state === 'success' || job.state === 'fail') return;
  await sleep(ctx.options.jobDelayMs, signal);
  setState(ctx, job, 'process');
  const vid = newId('v');
  const dir = videoDir(vid);
  const absolute = (path: string) => join(ctx.options.dataDir, path);
  await mkdir(absolute(dir), { recursive: true });
  const partial = `${dir}/download.part`;
  let video: VideoRecord;
  try {
    const { size, md5 } = await downloadSource(job.sourceUrl, absolute(partial), {
      maxBytes: ctx.options.maxSourceBytes,
      timeoutMs: ctx.options.downloadTimeoutMs,
      signal,
    });
    const info: ProbeResult = ctx.tools
      ? await probeMedia(ctx.tools, absolute(partial), signal)
      : await sniffVideo(absolute(partial));
    const file = `${dir}/original.${EXTENSIONS[info.format] ?? info.format.replace(/[^a-z0-9]/gi, '')}`;
    await rename(absolute(partial), absolute(file));
    await sleep(ctx.options.jobDelayMs, signal);
    const uploadedAt = nowMs(ctx);
    video = {
      vid,
      appid: job.appid,
      name: job.fileName,
      md5,
      sourceUrl: job.sourceUrl,
      uploadTime: nowSeconds(ctx),
      reviewAt: uploadedAt + ctx.options.reviewDelayMs,
      sourceType: 2,
      transCodeStatus: 1,
      fileTypes: info.fileTypes,
      original: {
        file,
        format: info.format,
        width: info.width,
        height: info.height,
        duration: info.duration,
        bitrate: info.bitrate,
        codec: info.codec,
        size,
      },
      renditions: {},
    };
  } catch (error) {
    await rm(absolute(dir), { recursive: true, force: true });
    // A job cut short by shutdown stays unfinished; the next start runs it again.
    if (signal.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    setState(ctx, job, 'fail', { reason });
    ctx.options.log(`upload job ${job.jobId} failed: ${reason}`);
    notify(ctx, job, undefined);
    return;
  }
  ctx.store.state.videos[vid] = video;
  setState(ctx, job, 'success', { vid });
  ctx.options.log(
    `upload job ${job.jobId} succeeded: vid ${vid} (${video.original.size} bytes, ${video.original.width}x${video.original.height})`,
  );
  notify(ctx, job, video);
}

function notify(ctx: PlatformContext, job: JobRecord, video: VideoRecord | undefined): void {
  ctx.callbacks.send({
    event: 'upload.finished',
    app_id: job.appid,
    create_time: nowSeconds(ctx),
    data: { ...jobView(job, video) },
  });
}

/**
 * Queues again every job a previous run left unfinished (it was stopped mid-way); they start
 * over from `init`.
 * @example resumeUploads(ctx)
 */
export function resumeUploads(ctx: PlatformContext): void {
  for (const job of Object.values(ctx.store.state.jobs)) {
    if (job.state === 'init' || job.state === 'process') {
      setState(ctx, job, 'init');
      enqueueUpload(ctx, job.jobId);
    }
  }
}
