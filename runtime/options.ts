/**
 * Every runtime option, read in one place: a command-line flag, then an environment variable,
 * then `cloudfn.config.*`, then the default, each through the option's validator. A bad value
 * throws a `CloudfnError` (`CLOUDFN_OPTIONS`) naming the option, where it came from and the fix.
 */
import { createError } from './errors.js';
import type { Limits, Trigger, LimitSources } from './types.js';

/** Options of a running server. Sizes are bytes, times milliseconds. */
export interface RuntimeOptions {
  /** Port to listen on (`--port`, `PORT`). @default 8000 */
  port: number;
  /** Address to listen on (`--host`, `HOST`). @default '0.0.0.0' */
  host: string;
  /** Time a call may take before it is answered 504 (`CLOUDFN_TIMEOUT`). @default 60000 */
  timeout: number;
  /** Body and multipart limits, also settable per function. */
  limits: Limits;
  /**
   * Where each limit came from (`--max-params`, `CLOUDFN_MAX_PARAMS`, `cloudfn.config
   * limits.maxParams`, `the default`), for the messages of the errors the limits raise.
   * @default undefined (messages say "the default")
   */
  limitSources?: LimitSources;
  /** Largest request head; larger gets 431 (`CLOUDFN_MAX_HEADER_SIZE`). @default 16384 */
  maxHeaderSize: number;
  /** Time to receive the request headers; slower gets 408. @default 20000 */
  headersTimeout: number;
  /** Time to receive the whole request; slower gets 408. @default 60000 */
  requestTimeout: number;
  /** Idle time before a keep-alive socket is closed. @default 5000 */
  keepAliveTimeout: number;
  /** Time in-flight requests get to finish after SIGTERM/SIGINT; below Cloud Run's ~10 s grace. @default 8000 */
  shutdownTimeout: number;
  /** Header carrying the log id, in and out (lower case). @default 'x-platform-logid' */
  logidHeader: string;
  /** A trusted gateway header that may set `service.trigger`; unset means none is trusted. @default undefined */
  triggerHeader: string | undefined;
  /** The trigger of requests that do not set one. @default 'online' */
  trigger: Trigger;
  /** What a JSON body with `__proto__`/`constructor.prototype` keys gets: 400, or the keys removed. @default 'error' */
  protoAction: 'error' | 'remove';
  /** Send handler error messages and stacks to clients (dev only). @default false */
  exposeErrors: boolean;
  /**
   * Path answered 200 while serving and 503 while draining, before routing and unlogged
   * (`CLOUDFN_HEALTH_PATH`; `off` turns it off). @default '/_cloudfn/health'
   */
  healthPath: string | undefined;
  /**
   * A second path answered as the health path: the one the platform's container services
   * probe (`CLOUDFN_PING_PATH`; `off` turns it off). @default '/v1/ping'
   */
  pingPath: string | undefined;
  /**
   * Serve Prometheus text at `/_cloudfn/metrics` (`--metrics`, `CLOUDFN_METRICS`); off, the
   * path is not answered and prom-client is not loaded (docs/observability.md#metrics).
   * @default false
   */
  metrics: boolean;
}

/** 10 MiB: the default largest body and file. */
const TEN_MIB = 10 * 1024 * 1024;

/**
 * The limits, once: each with its environment variable and default (documented in
 * docs/configuration.md). `defaultLimits`, the env names and the keys a function's `config`
 * accepts are all read from here.
 */
const limitSpecs: { readonly [K in keyof Limits]: { readonly env: string; readonly default: number } } = {
  maxBodySize: { env: 'CLOUDFN_MAX_BODY_SIZE', default: TEN_MIB },
  maxFileSize: { env: 'CLOUDFN_MAX_FILE_SIZE', default: TEN_MIB },
  maxFiles: { env: 'CLOUDFN_MAX_FILES', default: 10 },
  maxFields: { env: 'CLOUDFN_MAX_FIELDS', default: 100 },
  maxParts: { env: 'CLOUDFN_MAX_PARTS', default: 110 },
  maxFieldSize: { env: 'CLOUDFN_MAX_FIELD_SIZE', default: 1024 * 1024 },
  maxPartHeaderPairs: { env: 'CLOUDFN_MAX_PART_HEADER_PAIRS', default: 2000 },
  // body-parser's parameterLimit: enough for any form a person fills in, and it bounds the
  // work of one parse (1.1 million pairs took 0.8 s of one core before this limit).
  maxParams: { env: 'CLOUDFN_MAX_PARAMS', default: 1000 },
};

/** The environment variable of each limit. */
export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = Object.freeze(
  Object.fromEntries(Object.entries(limitSpecs).map(([key, spec]) => [key, spec.env])) as Record<keyof Limits, string>,
);

/** The names of the limits, in the order of docs/configuration.md. */
export const LIMIT_KEYS: readonly (keyof Limits)[] = Object.freeze(Object.keys(limitSpecs) as (keyof Limits)[]);

/** The default limits. */
export const defaultLimits: Readonly<Limits> = Object.freeze(
  Object.fromEntries(LIMIT_KEYS.map((key) => [key, limitSpecs[key].default])) as unknown as Limits,
);

/** Where `--metrics` serves the Prometheus text. */
export const METRICS_PATH = '/_cloudfn/metrics';

/** The default health path. */
export const DEFAULT_HEALTH_PATH = '/_cloudfn/health';

/** The path the platform's container services must answer (platform contract, containers). */
const DEFAULT_PING_PATH = '/v1/ping';

type Source = 'flag' | 'env' | 'config' | 'default';
type Parse<T> = (raw: unknown, where: string) => T;

/** Validators throw this; `pick` adds the option's name and wraps it as `CLOUDFN_OPTIONS`. */
function fail(_name: string, where: string, detail: string): never {
  throw new TypeError(`${detail} (from ${where})`);
}

function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parse<number> {
  return (raw, where) => {
    const value = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      fail('', where, `must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    }
    return value;
  };
}

const text: Parse<string> = (raw, where) => {
  if (typeof raw !== 'string' || raw.trim() === '')
    fail('', where, `must be a non-empty string, got ${JSON.stringify(raw)}`);
  return raw.trim();
};

const headerName: Parse<string> = (raw, where) => {
  const value = text(raw, where);
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value))
    fail('', where, `must be an HTTP header name, got ${JSON.stringify(raw)}`);
  return value.toLowerCase();
};

function oneOf<T extends string>(...values: T[]): Parse<T> {
  return (raw, where) => {
    if (typeof raw !== 'string' || !values.includes(raw as T))
      fail('', where, `must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
    return raw as T;
  };
}

const bool: Parse<boolean> = (raw, where) => {
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  return fail('', where, `must be true or false, got ${JSON.stringify(raw)}`);
};

/** A path starting with `/`, or `off` for none. */
const healthPath: Parse<string | undefined> = (raw, where) => {
  const value = text(raw, where);
  if (value === 'off') return undefined;
  if (!value.startsWith('/')) fail('', where, `must be a path starting with "/" (or off), got ${JSON.stringify(raw)}`);
  return value;
};

interface Spec<T> {
  env?: string;
  parse: Parse<T>;
  default: T;
}

type Scalars = Omit<RuntimeOptions, 'limits' | 'limitSources'>;

/** One row per option: its environment variable, validator and default. */
const specs: { [K in keyof Scalars]: Spec<Scalars[K]> } = {
  port: { env: 'PORT', parse: integer(0, 65535), default: 8000 },
  host: { env: 'HOST', parse: text, default: '0.0.0.0' },
  timeout: { env: 'CLOUDFN_TIMEOUT', parse: integer(1), default: 60_000 },
  maxHeaderSize: { env: 'CLOUDFN_MAX_HEADER_SIZE', parse: integer(1024), default: 16_384 },
  headersTimeout: { env: 'CLOUDFN_HEADERS_TIMEOUT', parse: integer(1), default: 20_000 },
  requestTimeout: { env: 'CLOUDFN_REQUEST_TIMEOUT', parse: integer(0), default: 60_000 },
  keepAliveTimeout: { env: 'CLOUDFN_KEEP_ALIVE_TIMEOUT', parse: integer(0), default: 5_000 },
  shutdownTimeout: { env: 'CLOUDFN_SHUTDOWN_TIMEOUT', parse: integer(0), default: 8_000 },
  logidHeader: { env: 'CLOUDFN_LOGID_HEADER', parse: headerName, default: 'x-platform-logid' },
  triggerHeader: { env: 'CLOUDFN_TRIGGER_HEADER', parse: headerName, default: undefined },
  trigger: { parse: oneOf<Trigger>('online', 'ide_debug', 'console_debug'), default: 'online' },
  protoAction: { env: 'CLOUDFN_PROTO_ACTION', parse: oneOf('error', 'remove'), default: 'error' },
  exposeErrors: { parse: bool, default: false },
  healthPath: { env: 'CLOUDFN_HEALTH_PATH', parse: healthPath, default: DEFAULT_HEALTH_PATH },
  pingPath: { env: 'CLOUDFN_PING_PATH', parse: healthPath, default: DEFAULT_PING_PATH },
  metrics: { env: 'CLOUDFN_METRICS', parse: bool, default: false },
};

/**
 * Node's compile cache (`module.enableCompileCache`, Node >= 22.1) for `cloudfn start` and
 * built bundles: a directory, `off`, or unset for Node's own default (`NODE_COMPILE_CACHE`,
 * else `<os tmpdir>/node-compile-cache`). Read from the environment only
 * (`CLOUDFN_COMPILE_CACHE`): it must be known before the code it caches is loaded, so before
 * cloudfn.config is read. See docs/performance.md#compile-cache.
 */
const compileCacheSpec: Spec<string | false | undefined> = {
  env: 'CLOUDFN_COMPILE_CACHE',
  parse: (raw, where) => {
    const value = text(raw, where);
    return value === 'off' ? false : value;
  },
  default: undefined,
};

/**
 * The compile cache option: a directory, `false` (off), or `undefined` (Node's default directory).
 * @example resolveCompileCache({ env: { CLOUDFN_COMPILE_CACHE: '/var/cache/cloudfn' } }) // '/var/cache/cloudfn'
 */
export function resolveCompileCache(sources: OptionSources = {}): string | false | undefined {
  return pick('compileCache', compileCacheSpec, sources);
}

/** Names of the environment variables, for docs and the CLI's help. */
export const optionEnvVars: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(Object.entries(specs).flatMap(([k, s]) => (s.env ? [[k, s.env]] : []))),
  compileCache: compileCacheSpec.env!,
  ...Object.fromEntries(LIMIT_KEYS.map((key) => [key, limitSpecs[key].env])),
});

/** Where option values come from; each layer is optional. */
export interface OptionSources {
  flags?: Partial<Record<string, unknown>>;
  env?: NodeJS.ProcessEnv;
  config?: Partial<Record<string, unknown>>;
}

function pick<T>(name: string, spec: Spec<T>, sources: OptionSources, configLimits?: Record<string, unknown>): T {
  return pickFrom(name, spec, sources, configLimits)[0];
}

/** `pick`, and where the value came from (`--port`, `PORT`, `cloudfn.config port`, `the default`). */
function pickFrom<T>(
  name: string,
  spec: Spec<T>,
  sources: OptionSources,
  configLimits?: Record<string, unknown>,
): [T, string] {
  const layers: [Source, unknown][] = [
    ['flag', sources.flags?.[name]],
    ['env', spec.env ? sources.env?.[spec.env] : undefined],
    ['config', configLimits ? configLimits[name] : sources.config?.[name]],
  ];
  for (const [source, raw] of layers) {
    if (raw === undefined || raw === '') continue;
    const where =
      source === 'flag'
        ? `--${kebab(name)}`
        : source === 'env'
          ? spec.env!
          : `cloudfn.config ${configLimits ? 'limits.' : ''}${name}`;
    try {
      return [spec.parse(raw, where), where];
    } catch (error) {
      throw createError('CLOUDFN_OPTIONS', name, (error as Error).message);
    }
  }
  return [spec.default, 'the default'];
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}

/**
 * Resolves every runtime option from its sources, most specific first.
 * @example resolveOptions({ flags: { port: '3000' }, env: process.env, config: fileConfig })
 */
export function resolveOptions(sources: OptionSources = {}): RuntimeOptions {
  const options = {} as Record<string, unknown>;
  for (const [name, spec] of Object.entries(specs)) options[name] = pick(name, spec as Spec<unknown>, sources);
  const configLimits = (sources.config?.['limits'] ?? {}) as Record<string, unknown>;
  const limits = {} as Record<string, number>;
  const limitSources = {} as Record<string, string>;
  for (const name of LIMIT_KEYS) {
    const spec: Spec<number> = { env: limitSpecs[name].env, parse: integer(0), default: limitSpecs[name].default };
    [limits[name], limitSources[name]] = pickFrom(
      name,
      spec,
      { flags: sources.flags, env: sources.env, config: configLimits } as OptionSources,
      configLimits,
    );
  }
  options['limits'] = limits;
  options['limitSources'] = limitSources;
  const resolved = options as unknown as RuntimeOptions;
  checkTimeouts(resolved);
  return resolved;
}

/**
 * Checks the options that constrain each other: node refuses a `requestTimeout` below
 * `headersTimeout` (with a RangeError at start-up), since the headers are part of the request.
 * @example checkTimeouts({ headersTimeout: 20000, requestTimeout: 60000 })
 */
export function checkTimeouts(options: Pick<RuntimeOptions, 'headersTimeout' | 'requestTimeout'>): void {
  const { headersTimeout, requestTimeout } = options;
  if (requestTimeout !== 0 && requestTimeout < headersTimeout) {
    throw createError(
      'CLOUDFN_OPTIONS',
      'requestTimeout',
      `must be 0 (off) or at least headersTimeout (${headersTimeout}), got ${requestTimeout}; raise CLOUDFN_REQUEST_TIMEOUT or lower CLOUDFN_HEADERS_TIMEOUT`,
    );
  }
}
