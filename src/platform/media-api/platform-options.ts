/**
 * The options of `createPlatform` (the flags of `cloudfn platform`): their types, defaults
 * and checks, throwing PLATFORM_OPTIONS naming the bad one; and the env vars that
 * `cloudfn platform` reads when a flag is not given. Both read through the option kit
 * (runtime/option-kit.ts).
 */
import { resolve } from 'node:path';
import { type OptionArea, type OptionSpec, readOption, readOptions } from '../../../runtime/option-kit.js';
import type { RequestGuard } from '../../../runtime/serve/http-server.js';
import { RATE_LIMITED_OPERATIONS } from '../../media/types.js';
import { platformError } from '../errors.js';
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
  /**
   * The check run first on every request (who may call the emulator: `cloudfn platform` and
   * `cloudfn dev --platform` give the Host and Origin policy of src/dev/host-guard.ts). @default none
   */
  guard?: RequestGuard;
}

/** Where state, keys and media live when neither `--data` nor `CLOUDFN_PLATFORM_DATA` says. */
export const DEFAULT_DATA_DIR = '.cloudfn/platform';

/** The env var each of these options of `cloudfn platform` falls back to when its flag is not given. */
export const PLATFORM_ENV_VARS = {
  port: 'CLOUDFN_PLATFORM_PORT',
  dataDir: 'CLOUDFN_PLATFORM_DATA',
  callbackUrl: 'CLOUDFN_PLATFORM_CALLBACK_URL',
  faults: 'CLOUDFN_PLATFORM_FAULTS',
  allowedHosts: 'CLOUDFN_ALLOWED_HOSTS',
} as const satisfies Partial<Record<keyof PlatformOptions | 'allowedHosts', string>>;

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
  return readOptions(envSpecs, { flags, env }, platformArea);
}

/** The options given: a value is taken as it is, only undefined is unset. */
const platformArea: OptionArea = {
  flag: (name) => name,
  fail: (name, _where, detail) => platformError('PLATFORM_OPTIONS', name, detail),
  unset: (raw) => raw === undefined,
};

/** The text of a flag or env var, as given. */
const asGiven = (env: string): OptionSpec<string | undefined> => ({
  env,
  parse: (raw) => raw as string,
  default: undefined,
});

const envSpecs = {
  port: asGiven(PLATFORM_ENV_VARS.port),
  dataDir: asGiven(PLATFORM_ENV_VARS.dataDir),
  callbackUrl: asGiven(PLATFORM_ENV_VARS.callbackUrl),
  faults: asGiven(PLATFORM_ENV_VARS.faults),
  allowedHosts: asGiven(PLATFORM_ENV_VARS.allowedHosts),
};

/** Every option with its default applied. */
export type ResolvedPlatformOptions = Required<Omit<PlatformOptions, 'callbackUrl' | 'faults' | 'guard'>> & {
  callbackUrl: string | undefined;
  guard: RequestGuard | undefined;
  faults: FaultSpec;
};

/** An integer of at least `min` (and at most `max`), else `fallback` when not given. */
function integer(fallback: number, min = 0, max?: number): OptionSpec<number> {
  return {
    default: fallback,
    parse: (value) => {
      if (!Number.isInteger(value) || (value as number) < min)
        throw new TypeError(`must be an integer of at least ${min}, got ${String(value)}`);
      if (max !== undefined && (value as number) > max) throw new TypeError(`must be at most ${max}, got ${value}`);
      return value as number;
    },
  };
}

/** The numeric options: default, least value (and the port's most). */
const counts = {
  port: integer(4000, 0, 65535),
  tokenTtlSeconds: integer(7200, 1),
  tokenRetireSeconds: integer(300),
  tokenFetchLimit: integer(500, 1),
  tokenFetchWindowSeconds: integer(300, 1),
  callbackRetries: integer(5),
  callbackBackoffMs: integer(1000),
  reviewDelayMs: integer(10_000),
  jobDelayMs: integer(500),
  transcodeDelayMs: integer(500),
  concurrency: integer(2, 1),
  maxSourceBytes: integer(2 ** 31, 1),
  downloadTimeoutMs: integer(600_000, 1),
  maxBodyBytes: integer(1_048_576, 1),
} satisfies Record<string, OptionSpec<number>>;

/**
 * Applies defaults and checks every option; throws `PLATFORM_OPTIONS` naming the bad one.
 * @example resolvePlatformOptions({ port: 0, dataDir: '/tmp/p', jobDelayMs: 0 })
 */
export function resolvePlatformOptions(options: PlatformOptions = {}): ResolvedPlatformOptions {
  const given = { flags: options as Record<string, unknown> };
  const count = (name: keyof typeof counts): number => readOption(name, counts[name], given, platformArea)[0];
  const port = count('port');
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
  for (const [op, limit] of Object.entries(rateLimits))
    readOption(`rateLimits.${op}`, integer(0, 1), { flags: { [`rateLimits.${op}`]: limit } }, platformArea);
  return {
    port,
    host: options.host ?? '127.0.0.1',
    dataDir: resolve(options.dataDir ?? DEFAULT_DATA_DIR),
    reset: options.reset ?? false,
    clients,
    tokenTtlSeconds: count('tokenTtlSeconds'),
    tokenRetireSeconds: count('tokenRetireSeconds'),
    tokenFetchLimit: count('tokenFetchLimit'),
    tokenFetchWindowSeconds: count('tokenFetchWindowSeconds'),
    envIds: options.envIds ?? [],
    domains: options.domains ?? [],
    appids: options.appids ?? [],
    callbackUrl: options.callbackUrl,
    callbackRetries: count('callbackRetries'),
    callbackBackoffMs: count('callbackBackoffMs'),
    faults: typeof options.faults === 'string' ? parseFaults(options.faults) : (options.faults ?? {}),
    reviewDelayMs: count('reviewDelayMs'),
    jobDelayMs: count('jobDelayMs'),
    transcodeDelayMs: count('transcodeDelayMs'),
    concurrency: count('concurrency'),
    maxSourceBytes: count('maxSourceBytes'),
    downloadTimeoutMs: count('downloadTimeoutMs'),
    transcodePreset: options.transcodePreset ?? 'veryfast',
    ffmpeg: options.ffmpeg ?? true,
    rateLimits,
    maxBodyBytes: count('maxBodyBytes'),
    log: options.log ?? ((line) => process.stderr.write(`[platform] ${line}\n`)),
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    guard: options.guard,
  };
}
