/**
 * The options of `createPlatform` (the flags of `cloudfn platform`): their types, defaults
 * and checks, throwing PLATFORM_OPTIONS naming the bad one; and the env vars that
 * `cloudfn platform` reads when a flag is not given.
 */
import { resolve } from 'node:path';
import { RATE_LIMITED_OPERATIONS } from '../media/types.js';
import { platformError } from './errors.js';
import { parseFaults, type FaultSpec } from './http/faults.js';
import type { FfmpegTools } from './jobs/ffmpeg.js';

/** Options of `createPlatform`; the CLI flags map onto them one to one (see docs/platform.md). */
export interface PlatformOptions {
  /** Port to listen on; 0 picks a free one. @default 4000 */
  port?: number;
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** Where state, keys and media live. @default '.cloudfn/platform' */
  dataDir?: string;
  /** Empty the data folder before starting (the platform key pair is kept). @default false */
  reset?: boolean;
  /** Accepted client_key → client_secret pairs; empty accepts any non-empty pair (dev mode). @default {} */
  clients?: Record<string, string>;
  /** Lifetime of an access token, in seconds. @default 7200 */
  tokenTtlSeconds?: number;
  /**
   * Seconds a token stays valid after a newer one is issued for the same client_key (the
   * platform's 5 minutes); only the latest two are ever valid. @default 300
   */
  tokenRetireSeconds?: number;
  /** Most tokens one client_key may fetch per `tokenFetchWindowSeconds`; more → err_no 10020. @default 500 */
  tokenFetchLimit?: number;
  /** The window of `tokenFetchLimit`, in seconds. @default 300 */
  tokenFetchWindowSeconds?: number;
  /** Known env_id values; empty accepts any env_id (then 401002 never happens). @default [] */
  envIds?: readonly string[];
  /** Extra media domains `get_video_by_vid` accepts in `domain` besides the emulator's own host. @default [] */
  domains?: readonly string[];
  /**
   * Mini-programs that get their own platform key pair (created in `<dataDir>/platform_keys/` on
   * first start; pairs already there are kept and used too). Other appids share the default pair.
   * @default []
   */
  appids?: readonly string[];
  /** Where signed callbacks are POSTed when an upload job or a transcode ends. @default none */
  callbackUrl?: string;
  /** Retries of a failed callback. @default 5 */
  callbackRetries?: number;
  /** First retry delay of a callback, doubling each time, in ms. @default 1000 */
  callbackBackoffMs?: number;
  /** Faults to inject, as an object or the `--faults` text. @default none */
  faults?: FaultSpec | string;
  /** Time after upload until `business_status` moves from 99 to 98, in ms. @default 10000 */
  reviewDelayMs?: number;
  /** Time an upload job spends in `init` and again in `process` before its end, in ms. @default 500 */
  jobDelayMs?: number;
  /** Time a transcode spends queued (run_status 1) and again transcoding (2), in ms. @default 500 */
  transcodeDelayMs?: number;
  /** Upload and transcode jobs run at once. @default 2 */
  concurrency?: number;
  /** Largest source file an upload accepts, in bytes. @default 2147483648 (2 GiB) */
  maxSourceBytes?: number;
  /** Time one source download may take, in ms. @default 600000 */
  downloadTimeoutMs?: number;
  /** x264/x265 speed preset of transcodes. @default 'veryfast' */
  transcodePreset?: string;
  /** true finds ffmpeg/ffprobe on PATH, false simulates media, or give the paths. @default true */
  ffmpeg?: boolean | FfmpegTools;
  /** Calls per second per appid, by operation. @default 20 for start_work_flow and the two statistics */
  rateLimits?: Readonly<Record<string, number>>;
  /** Largest request body, in bytes. @default 1048576 */
  maxBodyBytes?: number;
  /** Where the emulator writes its log lines. @default process.stderr */
  log?: (line: string) => void;
  /** The clock, in ms since 1970; tests move it to expire tokens and links. @default Date.now */
  now?: () => number;
  /** Source of randomness for faults, in [0, 1). @default Math.random */
  random?: () => number;
}

/** Where state, keys and media live when neither `--data` nor `CLOUDFN_PLATFORM_DATA` says. */
export const DEFAULT_DATA_DIR = '.cloudfn/platform';

/** The env var each of these options of `cloudfn platform` falls back to when its flag is not given. */
export const PLATFORM_ENV_VARS = {
  port: 'CLOUDFN_PLATFORM_PORT',
  dataDir: 'CLOUDFN_PLATFORM_DATA',
  callbackUrl: 'CLOUDFN_PLATFORM_CALLBACK_URL',
  faults: 'CLOUDFN_PLATFORM_FAULTS',
} as const satisfies Partial<Record<keyof PlatformOptions, string>>;

/** The options that also read an env var, as text, the way flags give them. */
export type PlatformEnvText = { [K in keyof typeof PLATFORM_ENV_VARS]?: string };

/**
 * Reads the options `cloudfn platform` also takes from the environment: a flag given wins,
 * else its env var (`PLATFORM_ENV_VARS`); one left undefined gets its default from
 * `resolvePlatformOptions`, which also checks callbackUrl and faults. `port` stays text so
 * the CLI parses it like its other numeric flags.
 * @example readPlatformEnv({ port: undefined }, { CLOUDFN_PLATFORM_PORT: '4100' }).port // '4100'
 */
export function readPlatformEnv(
  flags: PlatformEnvText,
  env: Record<string, string | undefined> = process.env,
): PlatformEnvText {
  const pick = (name: keyof typeof PLATFORM_ENV_VARS): string | undefined =>
    flags[name] ?? env[PLATFORM_ENV_VARS[name]];
  return { port: pick('port'), dataDir: pick('dataDir'), callbackUrl: pick('callbackUrl'), faults: pick('faults') };
}

/** Every option with its default applied. */
export type ResolvedPlatformOptions = Required<Omit<PlatformOptions, 'callbackUrl' | 'faults'>> & {
  callbackUrl: string | undefined;
  faults: FaultSpec;
};

function count(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw platformError('PLATFORM_OPTIONS', name, `must be an integer of at least ${min}, got ${String(value)}`);
  return value;
}

/**
 * Applies defaults and checks every option; throws `PLATFORM_OPTIONS` naming the bad one.
 * @example resolvePlatformOptions({ port: 0, dataDir: '/tmp/p', jobDelayMs: 0 })
 */
export function resolvePlatformOptions(options: PlatformOptions = {}): ResolvedPlatformOptions {
  const port = count('port', options.port, 4000);
  if (port > 65535) throw platformError('PLATFORM_OPTIONS', 'port', `must be at most 65535, got ${port}`);
  if (options.callbackUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(options.callbackUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw platformError(
        'PLATFORM_OPTIONS',
        'callbackUrl',
        `must be an http(s) URL, got ${JSON.stringify(options.callbackUrl)}`,
      );
    }
  }
  const clients = options.clients ?? {};
  for (const [key, secret] of Object.entries(clients)) {
    if (key === '' || typeof secret !== 'string' || secret === '')
      throw platformError(
        'PLATFORM_OPTIONS',
        'clients',
        `client ${JSON.stringify(key)} needs a non-empty key and secret`,
      );
  }
  const rateLimits = options.rateLimits ?? Object.fromEntries(RATE_LIMITED_OPERATIONS.map((op) => [op, 20]));
  for (const [op, limit] of Object.entries(rateLimits)) count(`rateLimits.${op}`, limit, 0, 1);
  return {
    port,
    host: options.host ?? '127.0.0.1',
    dataDir: resolve(options.dataDir ?? DEFAULT_DATA_DIR),
    reset: options.reset ?? false,
    clients,
    tokenTtlSeconds: count('tokenTtlSeconds', options.tokenTtlSeconds, 7200, 1),
    tokenRetireSeconds: count('tokenRetireSeconds', options.tokenRetireSeconds, 300),
    tokenFetchLimit: count('tokenFetchLimit', options.tokenFetchLimit, 500, 1),
    tokenFetchWindowSeconds: count('tokenFetchWindowSeconds', options.tokenFetchWindowSeconds, 300, 1),
    envIds: options.envIds ?? [],
    domains: options.domains ?? [],
    appids: options.appids ?? [],
    callbackUrl: options.callbackUrl,
    callbackRetries: count('callbackRetries', options.callbackRetries, 5),
    callbackBackoffMs: count('callbackBackoffMs', options.callbackBackoffMs, 1000),
    faults: typeof options.faults === 'string' ? parseFaults(options.faults) : (options.faults ?? {}),
    reviewDelayMs: count('reviewDelayMs', options.reviewDelayMs, 10_000),
    jobDelayMs: count('jobDelayMs', options.jobDelayMs, 500),
    transcodeDelayMs: count('transcodeDelayMs', options.transcodeDelayMs, 500),
    concurrency: count('concurrency', options.concurrency, 2, 1),
    maxSourceBytes: count('maxSourceBytes', options.maxSourceBytes, 2 ** 31, 1),
    downloadTimeoutMs: count('downloadTimeoutMs', options.downloadTimeoutMs, 600_000, 1),
    transcodePreset: options.transcodePreset ?? 'veryfast',
    ffmpeg: options.ffmpeg ?? true,
    rateLimits,
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 1_048_576, 1),
    log: options.log ?? ((line) => process.stderr.write(`[platform] ${line}\n`)),
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
  };
}
