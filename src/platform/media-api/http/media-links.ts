/**
 * Signed media links: builds and checks the paths
 * `/media/<expires>/<appid>/<sig>/<vid>/<rendition>/<file>` that `get_video_by_vid` hands out,
 * signed with HMAC-SHA256 under the state's link secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Path prefix of the emulator's media server. */
export const MEDIA_PREFIX = '/media/';

/** What a media link grants: one rendition of one video, until `expires`. */
export interface MediaLink {
  /** Unix seconds after which the link answers 403. */
  expires: number;
  /** The mini-program that asked for the link; its plays are counted under this app. */
  appid: string;
  vid: string;
  /** `original`, or a template id ('3', '4', '5'). */
  rendition: string;
  /** File inside the rendition: the entry file, or an HLS segment. */
  file: string;
}

function signatureOf(secret: string, link: Omit<MediaLink, 'file'>): string {
  return createHmac('sha256', secret)
    .update(`${link.expires}\n${link.appid}\n${link.vid}\n${link.rendition}`)
    .digest('base64url')
    .slice(0, 22);
}

/**
 * Builds the path of a signed media link. The grant sits in the path, not the query, so the
 * relative segment names inside an HLS playlist inherit it; the signature covers the whole
 * rendition folder, never one file.
 * @example mediaPath(secret, { expires: 1700000000, appid: 'tt1', vid: 'v1', rendition: '3', file: 'video.mp4' })
 * // '/media/1700000000/tt1/<sig>/v1/3/video.mp4'
 */
export function mediaPath(secret: string, link: MediaLink): string {
  const parts = [String(link.expires), link.appid, signatureOf(secret, link), link.vid, link.rendition, link.file];
  return MEDIA_PREFIX + parts.map(encodeURIComponent).join('/');
}

/** Outcome of checking a media path. */
export type LinkCheck = { ok: true; link: MediaLink } | { ok: false; reason: 'invalid' | 'expired'; expires?: number };

/** A file name inside a rendition folder: no separators, no dot-dot. */
const SAFE_FILE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Parses and checks a media path (without query): the signature must match and the expiry
 * must not have passed. Comparisons are constant-time.
 * @example const check = checkMediaPath(secret, url.pathname, Date.now()); if (!check.ok) answer403();
 */
export function checkMediaPath(secret: string, path: string, nowMs: number): LinkCheck {
  if (!path.startsWith(MEDIA_PREFIX)) return { ok: false, reason: 'invalid' };
  let parts: string[];
  try {
    parts = path.slice(MEDIA_PREFIX.length).split('/').map(decodeURIComponent);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const [expiresText, appid, signature, vid, rendition, file] = parts;
  if (
    parts.length !== 6 ||
    expiresText === undefined ||
    appid === undefined ||
    signature === undefined ||
    vid === undefined ||
    rendition === undefined ||
    file === undefined
  ) {
    return { ok: false, reason: 'invalid' };
  }
  if (!/^\d+$/.test(expiresText) || !SAFE_FILE.test(file) || !SAFE_FILE.test(rendition) || !SAFE_FILE.test(vid))
    return { ok: false, reason: 'invalid' };
  const link: MediaLink = { expires: Number(expiresText), appid, vid, rendition, file };
  const expected = Buffer.from(signatureOf(secret, link));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
  if (link.expires * 1000 <= nowMs) return { ok: false, reason: 'expired', expires: link.expires };
  return { ok: true, link };
}
