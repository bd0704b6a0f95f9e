/**
 * `serveMedia`: answers GET/HEAD of a media link (signature and expiry, 404 for deleted
 * videos, `Range` with 206/416) and counts plays and traffic.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlatformContext } from '../context.js';
import { platformError } from '../../errors.js';
import { checkMediaPath } from './media-links.js';
import { parseRange } from './range.js';
import { sendError } from './respond.js';

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.mkv': 'video/x-matroska',
  '.flv': 'video/x-flv',
  '.avi': 'video/x-msvideo',
};

/**
 * Serves a media link: checks its signature and expiry (403), finds the file (404 once the
 * video is deleted), answers `Range` with 206 (416 outside the file) and counts the play and
 * the bytes sent. A play is a GET of the entry file (the MP4 or the HLS playlist) that starts
 * at byte 0; seeking and HLS segments add traffic only.
 * @example if (path.startsWith(MEDIA_PREFIX)) return serveMedia(ctx, req, res, path, logId)
 */
export async function serveMedia(
  ctx: PlatformContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  logId: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendError(res, logId, platformError('PLATFORM_METHOD_NOT_ALLOWED', req.method ?? ''));
    return;
  }
  const check = checkMediaPath(ctx.store.state.linkSecret, path, ctx.options.now());
  if (!check.ok) {
    const error =
      check.reason === 'expired'
        ? platformError('PLATFORM_LINK_EXPIRED', new Date((check.expires ?? 0) * 1000).toISOString())
        : platformError('PLATFORM_LINK_INVALID');
    sendError(res, logId, error);
    return;
  }
  const { link } = check;
  const video = ctx.store.state.videos[link.vid];
  const media =
    video === undefined ? undefined : link.rendition === 'original' ? video.original : video.renditions[link.rendition];
  const folder = media?.file.slice(0, media.file.lastIndexOf('/'));
  // The original is one file; a rendition folder may hold segments beside its entry.
  const allowed = media !== undefined && (link.rendition !== 'original' || media.file.endsWith(`/${link.file}`));
  const file = allowed && folder !== undefined ? join(ctx.options.dataDir, folder, link.file) : undefined;
  const info = file === undefined ? undefined : await stat(file).catch(() => undefined);
  if (file === undefined || info === undefined || !info.isFile() || media === undefined) {
    sendError(res, logId, platformError('PLATFORM_MEDIA_NOT_FOUND', path));
    return;
  }
  const size = info.size;
  const header = req.headers.range;
  const range = parseRange(header, size);
  if (range === 'unsatisfiable') {
    res.setHeader('content-range', `bytes */${size}`);
    sendError(res, logId, platformError('PLATFORM_RANGE_NOT_SATISFIABLE', header ?? '', size));
    return;
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  const headers: Record<string, string | number> = {
    'content-type': CONTENT_TYPES[extname(link.file)] ?? 'application/octet-stream',
    'content-length': Math.max(0, end - start + 1),
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-transform',
    'access-control-allow-origin': '*',
  };
  if (range !== undefined) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  res.writeHead(range === undefined ? 200 : 206, headers);
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  const isEntry = media.file.endsWith(`/${link.file}`);
  const play = isEntry && start === 0;
  let sent = 0;
  const stream = createReadStream(file, { start, end });
  stream.on('data', (chunk) => {
    sent += chunk.length;
  });
  stream.pipe(res);
  // Counted once the exchange ends, with the bytes actually read, even if the player hangs up.
  res.on('close', () => {
    stream.destroy();
    if (ctx.store.state.videos[link.vid] !== undefined) ctx.stats.record(link.vid, link.appid, { play, bytes: sent });
  });
}
