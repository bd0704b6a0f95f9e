/**
 * The local TOS's setting, read in one place: whether `components.tos` is on, the keys it signs
 * with, the region and endpoint it stands for, the default bucket, where its data lives (the
 * app's `.cloudfn/storage/`), and the variables `cloudfn dev` injects for a function: the names
 * Volcengine's own samples read (`TOS_ACCESS_KEY`, `TOS_SECRET_KEY`, `TOS_REGION`,
 * `TOS_ENDPOINT`) and `TOS_BUCKET`. The platform injects none of them (docs/decisions.md).
 */
import { join } from 'node:path';
import { dataHomeFor } from '../../app/app-root.js';
import type { ConfigFile } from '../../../runtime/serve/config-file.js';
import { readComponentsSetting } from '../components/settings.js';

/** The local keys: fixed, so that a URL presigned before a restart still opens after it. */
export const LOCAL_ACCESS_KEY = 'AKLTcloudfnlocaldev';
export const LOCAL_SECRET_KEY = 'cloudfn-local-tos-secret-key';
/** The region the local TOS stands for: the platform's. */
export const LOCAL_REGION = 'cn-beijing';
/** The public endpoint, which the platform's samples name and dev answers in process. */
export const PUBLIC_ENDPOINT = `tos-${LOCAL_REGION}.volces.com`;
/** The bucket every store has, named in `TOS_BUCKET`. */
export const DEFAULT_BUCKET = 'cloudfn-dev';

/** The variables dev injects, named as Volcengine's samples read them. */
export const TOS_ENV_NAMES = ['TOS_ACCESS_KEY', 'TOS_SECRET_KEY', 'TOS_REGION', 'TOS_ENDPOINT', 'TOS_BUCKET'] as const;

/** The local TOS of one project. */
export interface TosSetting {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
  readonly endpoint: string;
  readonly bucket: string;
  /** The store's folder. */
  readonly dir: string;
}

/**
 * Set by `cloudfn dev --ephemeral`: the store's folder (a temporary one, removed at exit) instead
 * of the data home's `storage/`.
 */
export const STORAGE_DATA_VAR = 'CLOUDFN_DEV_STORAGE_DATA';

/**
 * The store's folder for the project at `root`: `CLOUDFN_DEV_STORAGE_DATA` when set (`--ephemeral`),
 * else its app's data home's `storage/`.
 */
export function storageDirFor(root: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env[STORAGE_DATA_VAR] || join(dataHomeFor(root), 'storage');
}

/**
 * The setting of a store in `dir` (`startStorage` of `cloudfn/testing`, whatever the config says).
 * @example const tos = localTosSetting('/tmp/store')
 */
export function localTosSetting(dir: string): TosSetting {
  return {
    accessKey: LOCAL_ACCESS_KEY,
    secretKey: LOCAL_SECRET_KEY,
    region: LOCAL_REGION,
    endpoint: PUBLIC_ENDPOINT,
    bucket: DEFAULT_BUCKET,
    dir,
  };
}

/**
 * The setting of the project at `root`, or undefined when `components.tos` is not on.
 * @example const tos = readTosSetting(root, config); if (tos) new ObjectStore({ dir: tos.dir, defaultBucket: tos.bucket })
 */
export function readTosSetting(root: string, config: ConfigFile): TosSetting | undefined {
  if (readComponentsSetting(config['components']).tos !== true) return undefined;
  return localTosSetting(storageDirFor(root));
}

/** The variables a function is given. */
export function tosEnv(setting: TosSetting): Record<(typeof TOS_ENV_NAMES)[number], string> {
  return {
    TOS_ACCESS_KEY: setting.accessKey,
    TOS_SECRET_KEY: setting.secretKey,
    TOS_REGION: setting.region,
    TOS_ENDPOINT: setting.endpoint,
    TOS_BUCKET: setting.bucket,
  };
}
