/**
 * The video operations: get_video_list, delete_video and get_video_by_vid (signed
 * playback links on the emulator's known domains).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlaybackItem } from '../../../../media/types.js';
import { MIN_EXPIRE_TIME } from '../../../../media/validate.js';
import { nowMs, nowSeconds, type PlatformContext } from '../../context.js';
import { platformError } from '../../../errors.js';
import { TEMPLATES } from '../../jobs/ffmpeg.js';
import { mediaPath } from '../media-links.js';
import type { MediaRecord } from '../../state/state.js';
import { videoDir } from '../../jobs/upload-jobs.js';
import { businessStatus, videoModel } from '../../state/views.js';
import { ownedVideo, requireEnv, type OperationHandler } from './shared.js';

/** get_video_list: the caller's videos, newest first, filtered and paged. */
export const getVideoList: OperationHandler = (ctx, body, caller) => {
  if (body['env_id'] !== undefined) requireEnv(ctx, body['env_id']);
  const now = nowMs(ctx);
  const pageSize = body['page_size'] as number;
  const pageNumber = body['page_number'] as number;
  const wantedStatus = body['business_status'] as number | undefined;
  const name = body['video_name'] as string | undefined;
  const matched = Object.values(ctx.store.state.videos)
    .filter((v) => v.appid === caller.appid)
    .filter((v) => wantedStatus === undefined || businessStatus(v, now) === wantedStatus)
    .filter((v) => name === undefined || name === '' || v.name.includes(name))
    .sort((a, b) => b.uploadTime - a.uploadTime || a.vid.localeCompare(b.vid));
  const page = matched.slice(pageNumber * pageSize, (pageNumber + 1) * pageSize);
  return { total_num: matched.length, data: page.map((v) => videoModel(v, now)) };
};

/** delete_video: removes the record, the files and the play counts; its links answer 404. */
export const deleteVideo: OperationHandler = async (ctx, body, caller) => {
  requireEnv(ctx, body['env_id']);
  const video = ownedVideo(ctx, caller, body['vid'] as string);
  delete ctx.store.state.videos[video.vid];
  ctx.stats.forget(video.vid);
  ctx.store.changed();
  await rm(join(ctx.options.dataDir, videoDir(video.vid)), { recursive: true, force: true });
  ctx.options.log(`video ${video.vid} deleted`);
  return {};
};

/** Strips a scheme and a trailing slash, so "http://h:1/" and "h:1" name the same domain. */
function bareDomain(domain: string): string {
  return domain
    .replace(/^https?:\/\//i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/**
 * The domains links may use: the Host the request reached, the address the emulator listens
 * on, localhost at the same port, and the configured extra domains.
 */
function knownDomains(ctx: PlatformContext, host: string): string[] {
  const port = ctx.listenHost.split(':').pop() ?? '';
  const all = [host, ctx.listenHost, `127.0.0.1:${port}`, `localhost:${port}`, ...ctx.options.domains]
    .map(bareDomain)
    .filter((d) => d !== '');
  return [...new Set(all)];
}

/** get_video_by_vid: signed links to the original and every finished rendition. */
export const getVideoByVid: OperationHandler = (ctx, body, caller) => {
  const video = ownedVideo(ctx, caller, body['vid'] as string);
  const domains = knownDomains(ctx, caller.host);
  const asked = body['domain'] as string | undefined;
  const main = asked === undefined || asked === '' ? domains[0]! : bareDomain(asked);
  if (!domains.includes(main))
    throw platformError(
      'PLATFORM_PARAM_ERROR',
      `domain ${JSON.stringify(asked)} is not a media domain of this platform; use one of ${domains.join(', ')} or start it with --domain`,
    );
  const backup = domains.find((d) => d !== main) ?? main;
  const expires = nowSeconds(ctx) + ((body['expire_time'] as number | undefined) ?? MIN_EXPIRE_TIME);
  const item = (rendition: string, media: MediaRecord, original: boolean): PlaybackItem => {
    const path = mediaPath(ctx.store.state.linkSecret, {
      expires,
      appid: caller.appid,
      vid: video.vid,
      rendition,
      file: media.file.split('/').pop()!,
    });
    return {
      format: media.format,
      main_play_url: `http://${main}${path}`,
      back_up_play_url: `http://${backup}${path}`,
      main_url_expire: String(expires),
      back_url_expire: String(expires),
      // The real height: templates are 720P at most and never upscale, so a small source stays small.
      definition: media.height > 0 ? `${media.height}p` : (TEMPLATES[rendition]?.definition ?? 'unknown'),
      bitrate: media.bitrate,
      codec: media.codec,
      size: media.size,
      is_demote: false,
      is_original: original,
    };
  };
  const renditions = Object.entries(video.renditions).sort(([a], [b]) => a.localeCompare(b));
  return {
    data: [
      ...renditions.map(([template, media]) => item(template, media, false)),
      item('original', video.original, true),
    ],
  };
};
