/**
 * Transcoding runs in the background: queues a run started by `start_work_flow`, moves it
 * through run_status 1, 2, 10 or 9, stores the rendition, sends `transcode.finished`
 * and resumes unfinished runs on start.
 */
import { copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlatformContext } from '../context.js';
import { nowMs, nowSeconds } from '../context.js';
import { entryFileOf, probeMedia, TEMPLATES, transcode, type TranscodeTemplate } from './ffmpeg.js';
import { sleep } from './job-queue.js';
import type { MediaRecord, RunRecord, VideoRecord } from '../state/state.js';
import { videoDir } from './upload-jobs.js';

/** `run_status_msg` of each state; a failure appends its reason. */
export const RUN_STATUS_MSG: Readonly<Record<number, string>> = {
  1: 'waiting',
  2: 'transcoding',
  9: 'failed',
  10: 'success',
};

/**
 * Queues a transcoding run: run_status 1 (queued) for `transcodeDelayMs`, then 2 while ffmpeg
 * runs (the video's trans_code_status 2), then 10 (video 4) or 9 (video 3).
 * @example enqueueTranscode(ctx, run.runId)
 */
export function enqueueTranscode(ctx: PlatformContext, runId: string): void {
  ctx.queue.push((signal) => runTranscode(ctx, runId, signal));
}

function setRun(
  ctx: PlatformContext,
  run: RunRecord,
  status: RunRecord['status'],
  message = RUN_STATUS_MSG[status] ?? '',
): void {
  Object.assign(run, { status, message, updatedAt: nowMs(ctx) });
  ctx.store.changed();
}

function setVideo(ctx: PlatformContext, vid: string, status: VideoRecord['transCodeStatus']): void {
  const video = ctx.store.state.videos[vid];
  if (video === undefined) return;
  video.transCodeStatus = status;
  ctx.store.changed();
}

async function runTranscode(ctx: PlatformContext, runId: string, signal: AbortSignal): Promise<void> {
  const run = ctx.store.state.runs[runId];
  if (run === undefined || run.status === 9 || run.status === 10) return;
  await sleep(ctx.options.transcodeDelayMs, signal);
  const template = TEMPLATES[run.template];
  const source = ctx.store.state.videos[run.vid];
  if (source === undefined || template === undefined) {
    finish(ctx, run, undefined, source === undefined ? 'the video was deleted' : `unknown template ${run.template}`);
    return;
  }
  setRun(ctx, run, 2);
  setVideo(ctx, run.vid, 2);
  const absolute = (path: string) => join(ctx.options.dataDir, path);
  const work = `${videoDir(run.vid)}/.${run.template}-${run.runId}`;
  const final = `${videoDir(run.vid)}/${run.template}`;
  let rendition: MediaRecord;
  try {
    await mkdir(absolute(work), { recursive: true });
    const entry = `${work}/${entryFileOf(template)}`;
    let probed: Omit<MediaRecord, 'file' | 'size'>;
    if (ctx.tools) {
      await transcode(ctx.tools, absolute(source.original.file), absolute(work), template, {
        preset: ctx.options.transcodePreset,
        hasAudio: source.fileTypes.includes('audio'),
        signal,
      });
      const info = await probeMedia(ctx.tools, absolute(entry), signal);
      probed = {
        format: template.format,
        width: info.width,
        height: info.height,
        duration: info.duration,
        bitrate: info.bitrate,
        codec: info.codec || template.codec,
      };
    } else {
      await simulate(absolute(source.original.file), absolute(work), template, source.original.duration);
      const { width, height, duration, bitrate } = source.original;
      probed = { format: template.format, width, height, duration, bitrate, codec: template.codec };
    }
    await sleep(ctx.options.transcodeDelayMs, signal);
    const size = await folderSize(absolute(work));
    if (ctx.store.state.videos[run.vid] === undefined) throw new Error('the video was deleted');
    await rm(absolute(final), { recursive: true, force: true });
    await rename(absolute(work), absolute(final));
    // ffprobe gives an HLS playlist the bit rate of the playlist text, so HLS takes size / duration.
    const measured = template.format === 'hls' || probed.bitrate <= 0;
    const bitrate = measured && probed.duration > 0 ? Math.round((size * 8) / probed.duration / 1000) : probed.bitrate;
    rendition = { ...probed, bitrate, file: `${final}/${entryFileOf(template)}`, size };
  } catch (error) {
    await rm(absolute(work), { recursive: true, force: true });
    if (signal.aborted) throw error;
    finish(ctx, run, undefined, error instanceof Error ? error.message : String(error));
    return;
  }
  finish(ctx, run, rendition);
}

function finish(ctx: PlatformContext, run: RunRecord, rendition: MediaRecord | undefined, reason?: string): void {
  const video = ctx.store.state.videos[run.vid];
  if (rendition !== undefined && video !== undefined) {
    video.renditions[run.template] = rendition;
    setRun(ctx, run, 10);
    setVideo(ctx, run.vid, 4);
    ctx.options.log(
      `transcode ${run.runId} of ${run.vid} (template ${run.template}) succeeded: ${rendition.width}x${rendition.height} ${rendition.codec}, ${rendition.size} bytes`,
    );
  } else {
    setRun(ctx, run, 9, `failed: ${reason ?? 'unknown error'}`);
    setVideo(ctx, run.vid, 3);
    ctx.options.log(`transcode ${run.runId} of ${run.vid} failed: ${reason ?? 'unknown error'}`);
  }
  ctx.callbacks.send({
    event: 'transcode.finished',
    app_id: run.appid,
    create_time: nowSeconds(ctx),
    data: {
      run_id: run.runId,
      vid: run.vid,
      trans_code_type: run.template,
      run_status: run.status,
      run_status_msg: run.message,
      trans_code_status: ctx.store.state.videos[run.vid]?.transCodeStatus ?? 3,
    },
  });
}

/** Without ffmpeg the rendition is the original file, wrapped in a playlist for HLS. */
async function simulate(original: string, work: string, template: TranscodeTemplate, duration: number): Promise<void> {
  if (template.format === 'mp4') {
    await copyFile(original, join(work, 'video.mp4'));
    return;
  }
  await copyFile(original, join(work, 'seg_000.ts'));
  const seconds = duration > 0 ? duration : 10;
  const playlist = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    `#EXT-X-TARGETDURATION:${Math.ceil(seconds)}`,
    '#EXT-X-PLAYLIST-TYPE:VOD',
    `#EXTINF:${seconds.toFixed(3)},`,
    'seg_000.ts',
    '#EXT-X-ENDLIST',
    '',
  ];
  await writeFile(join(work, 'index.m3u8'), playlist.join('\n'));
}

async function folderSize(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

/**
 * Queues again every run a previous start left unfinished; they start over at run_status 1.
 * @example resumeTranscodes(ctx)
 */
export function resumeTranscodes(ctx: PlatformContext): void {
  for (const run of Object.values(ctx.store.state.runs)) {
    if (run.status === 1 || run.status === 2) {
      setRun(ctx, run, 1);
      enqueueTranscode(ctx, run.runId);
    }
  }
}
