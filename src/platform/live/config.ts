/**
 * `liveData` of cloudfn.config: where the simulated platform POSTs a room's messages (`path`,
 * the path set in the platform console's data-push settings), who the room's anchor is
 * (`anchorOpenid`, sent as `x-anchor-openid`), and the data secret that signs each push
 * (`secret`). Read by `cloudfn dev`; `cloudfn start` accepts the key and ignores it (the
 * platform itself pushes in production).
 */
import { platformError } from '../errors.js';

/** The `liveData` key of cloudfn.config. */
export interface LiveDataConfig {
  /** The function path the room's messages are POSTed to, e.g. `/live_data_callback`. */
  path: string;
  /** The room's anchor, sent as `x-anchor-openid`. @default the dev user's `anchorOpenid`, else its openid */
  anchorOpenid?: string;
  /** The data secret that signs every push (`x-signature`). @default 'cloudfn-dev-live-secret' */
  secret?: string;
}

/** The keys of `liveData`, for the config schema. */
export const LIVE_DATA_KEYS = ['path', 'anchorOpenid', 'secret'] as const;

/** The secret that signs pushes when the config names none. */
export const DEV_LIVE_SECRET = 'cloudfn-dev-live-secret';

const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * Reads and checks `config.liveData`; undefined when absent. A bad value throws
 * `PLATFORM_OPTIONS` naming the key and the fix.
 * @example readLiveDataConfig({ liveData: { path: '/live_data_callback' } }) // { path: '/live_data_callback' }
 */
export function readLiveDataConfig(config: Readonly<Record<string, unknown>>): LiveDataConfig | undefined {
  const raw = config['liveData'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw platformError(
      'PLATFORM_OPTIONS',
      'liveData',
      `must be an object such as { "path": "/live_data_callback" }, got ${JSON.stringify(raw)} (cloudfn.config)`,
    );
  const value = raw as Record<string, unknown>;
  for (const key of Object.keys(value))
    if (!(LIVE_DATA_KEYS as readonly string[]).includes(key))
      throw platformError(
        'PLATFORM_OPTIONS',
        `liveData.${key}`,
        `is not a key; the keys are ${LIVE_DATA_KEYS.join(', ')}`,
      );
  const path = value['path'];
  if (typeof path !== 'string' || !path.startsWith('/') || !PRINTABLE.test(path))
    throw platformError(
      'PLATFORM_OPTIONS',
      'liveData.path',
      `must be a path that starts with '/', such as "/live_data_callback", got ${JSON.stringify(path)}`,
    );
  const out: LiveDataConfig = { path };
  for (const key of ['anchorOpenid', 'secret'] as const) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field !== 'string' || !PRINTABLE.test(field))
      throw platformError(
        'PLATFORM_OPTIONS',
        `liveData.${key}`,
        `must be a non-empty string of printable ASCII without spaces (it is sent in a header or signs one), got ${JSON.stringify(field)}`,
      );
    out[key] = field;
  }
  return out;
}
