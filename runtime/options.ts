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
  /**
   * The lame-duck period after SIGTERM (`CLOUDFN_DRAIN_DELAY`): the health paths answer 503 at
   * once while requests are still served, so balancers stop sending before the port closes;
   * then the `shutdownTimeout` drain begins. 0 refuses at once (docs/deploy.md#zero-downtime-deploys).
   * @default 5000
   */
  drainDelay: number;
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
  /**
   * Bytes of request bodies held in memory and of answers not yet sent, across requests; a
   * request that would pass it is refused 503 with `Retry-After` before its body is read
   * (`--memory-budget`, `CLOUDFN_MEMORY_BUDGET`; 0 is no limit). @default 134217728 (128 MiB)
   */
  memoryBudget: number;
  /**
   * Time an answer may wait for a client that does not read it before the connection is
   * closed (`--send-timeout`, `CLOUDFN_SEND_TIMEOUT`; 0 is no limit). @default 10000
   */
  sendTimeout: number;
  /**
   * Open connections; a request on one opened past it is answered 503 with `Retry-After`
   * (`--max-connections`, `CLOUDFN_MAX_CONNECTIONS`; 0 is no limit). @default 1024
   */
  maxConnections: number;
  /**
   * Time a request body that does not fit the memory budget waits, unread, for room before it
   * is refused 503 (`--memory-wait-timeout`, `CLOUDFN_MEMORY_WAIT_TIMEOUT`; 0 refuses at once).
   * @default 10000
   */
  memoryWaitTimeout: number;
  /**
   * Percent of `maxConnections` or of `memoryBudget` past which the app is under pressure and
   * shortens its timeouts (`--overload-threshold`, `CLOUDFN_OVERLOAD_THRESHOLD`; 0 never).
   * @default 80
   */
  overloadThreshold: number;
  /** `headersTimeout` under pressure (`CLOUDFN_OVERLOAD_HEADERS_TIMEOUT`). @default 5000 */
  overloadHeadersTimeout: number;
  /** `keepAliveTimeout` under pressure (`CLOUDFN_OVERLOAD_KEEP_ALIVE_TIMEOUT`). @default 1000 */
  overloadKeepAliveTimeout: number;
  /**
   * `sendTimeout` under pressure; also how long an answer must have gone unread before it may
   * be cut to make room for a small request (`CLOUDFN_OVERLOAD_SEND_TIMEOUT`). @default 2000
   */
  overloadSendTimeout: number;
  /**
   * The folder functions are found in, relative to the project root (`--functions-dir`,
   * `CLOUDFN_FUNCTIONS_DIR`); `.` is the root itself, as in the platform's own templates
   * (docs/platform-projects.md). @default 'functions'
   */
  functionsDir: string;
  /**
   * Trust the headers only the platform sets (runtime/request/gateway-headers.ts: the caller's
   * `X-TT-OPENID`, `X-TT-APPID`, ..., the live room's, the WebSocket gateway's, the live-data
   * line's and `x-tt-logid`) a request carries (`CLOUDFN_TRUST_GATEWAY_HEADERS`). Only behind the
   * platform's gateway, which sets them; off, they are removed before the handler runs, so no
   * client can claim another user, room or connection (docs/decisions.md). @default false
   */
  trustGatewayHeaders: boolean;
  /**
   * Which `@open-dy/node-server-sdk` the container bundles of `cloudfn build` carry
   * (`CLOUDFN_SDK`, `--sdk`): `platform`, the real package, installed from the platform's
   * registry and bundled in (images the platform builds); `stand-in`, cloudfn's local stand-in
   * bundled in (images that run anywhere else). The function-service target always leaves it to
   * the platform (docs/platform-projects.md#cloudfn-build). @default 'platform'
   */
  sdk: 'platform' | 'stand-in';
  /**
   * Turn `console.log/info/warn/error/debug` into JSON log lines with the logid of the request
   * that made them (`CLOUDFN_CAPTURE_CONSOLE`). @default true
   */
  captureConsole: boolean;
}

/** The caller as the platform's gateway sends it in headers (docs/platform-projects.md). */
export interface DevUser {
  /** `X-TT-OPENID`. @default 'dev-openid' */
  openid: string;
  /** `X-TT-APPID`; the emulator's dev app (`cloudfn dev --platform`), so both name one app. @default 'tt-dev-app' */
  appid: string;
  /** `X-TT-UNIONID`. @default 'dev-unionid' */
  unionid: string;
  /** `X-TT-ENV`. @default 'development' */
  env: string;
  /** `X-TT-SOURCE`. @default 'miniapp' */
  source: string;
  /** `X-Forwarded-For`. @default '127.0.0.1' */
  ip: string;
  /** `X-Room-ID`: calls come from this live room. @default undefined (no room) */
  roomid?: string;
  /** `X-Anchor-OpenID`: the live room's anchor. @default undefined */
  anchorOpenid?: string;
  /** `X-Avatar-Url`: the anchor's avatar. @default undefined */
  avatarUrl?: string;
  /** `X-Nick-Name`, sent percent-encoded: the anchor's nickname, any text. @default undefined */
  nickname?: string;
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
export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = /* @__PURE__ */ Object.freeze(
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

/** A folder relative to the project root: no absolute path, no `..`. */
const relativeDir: Parse<string> = (raw, where) => {
  const given = text(raw, where).replace(/\\/g, '/');
  if (given.startsWith('/') || /^[A-Za-z]:/.test(given) || given.split('/').includes('..'))
    fail(
      '',
      where,
      `must be a folder inside the project, such as "functions" or "." (the root), got ${JSON.stringify(raw)}`,
    );
  return given.replace(/\/+$/, '').replace(/^(\.\/)+(?=.)/, '') || '.';
};

/** The default health path. */
export const DEFAULT_HEALTH_PATH = '/_cloudfn/health';

/** The path the platform's container services must answer (platform contract, containers). */
const DEFAULT_PING_PATH = '/v1/ping';

type Source = 'flag' | 'env' | 'config' | 'default';

/** The JSON Schema (draft 2020-12) of the values a validator accepts, for editors. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** A validator, and the JSON Schema of what it accepts in `cloudfn.config.json`. */
type Parse<T> = ((raw: unknown, where: string) => T) & { schema?: JsonSchema };

/** Attaches the JSON Schema of a validator's values (read by `configOptionTable`). */
function described<T>(parse: (raw: unknown, where: string) => T, schema: JsonSchema): Parse<T> {
  return Object.assign(parse, { schema });
}

/** Validators throw this; `pick` adds the option's name and wraps it as `CLOUDFN_OPTIONS`. */
function fail(_name: string, where: string, detail: string): never {
  throw new TypeError(`${detail} (from ${where})`);
}

function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parse<number> {
  return described(
    (raw, where) => {
      const value = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        fail('', where, `must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      }
      return value;
    },
    { type: 'integer', minimum: min, ...(max === Number.MAX_SAFE_INTEGER ? {} : { maximum: max }) },
  );
}

const text: Parse<string> = described(
  (raw, where) => {
    if (typeof raw !== 'string' || raw.trim() === '')
      fail('', where, `must be a non-empty string, got ${JSON.stringify(raw)}`);
    return raw.trim();
  },
  { type: 'string', minLength: 1 },
);

const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

const headerName: Parse<string> = described(
  (raw, where) => {
    const value = text(raw, where);
    if (!new RegExp(HEADER_NAME).test(value))
      fail('', where, `must be an HTTP header name, got ${JSON.stringify(raw)}`);
    return value.toLowerCase();
  },
  { type: 'string', pattern: HEADER_NAME },
);

function oneOf<T extends string>(...values: T[]): Parse<T> {
  return described(
    (raw, where) => {
      if (typeof raw !== 'string' || !values.includes(raw as T))
        fail('', where, `must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
      return raw as T;
    },
    { enum: values },
  );
}

const bool: Parse<boolean> = described(
  (raw, where) => {
    if (typeof raw === 'boolean') return raw;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    return fail('', where, `must be true or false, got ${JSON.stringify(raw)}`);
  },
  { type: 'boolean' },
);

/** A path starting with `/`, or `off` for none. */
const healthPath: Parse<string | undefined> = described(
  (raw, where) => {
    const value = text(raw, where);
    if (value === 'off') return undefined;
    if (!value.startsWith('/'))
      fail('', where, `must be a path starting with "/" (or off), got ${JSON.stringify(raw)}`);
    return value;
  },
  { type: 'string', pattern: '^(/.*|off)$' },
);

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
  // HAProxy checking every 1 s with fall 2 takes the server out within about 2 s, Kubernetes
  // endpoints a few seconds: 5 s covers both, and 5 s + 8 s stays below Kubernetes' 30 s grace.
  drainDelay: { env: 'CLOUDFN_DRAIN_DELAY', parse: integer(0, 600_000), default: 5_000 },
  logidHeader: { env: 'CLOUDFN_LOGID_HEADER', parse: headerName, default: 'x-platform-logid' },
  triggerHeader: { env: 'CLOUDFN_TRIGGER_HEADER', parse: headerName, default: undefined },
  trigger: { parse: oneOf<Trigger>('online', 'ide_debug', 'console_debug'), default: 'online' },
  protoAction: { env: 'CLOUDFN_PROTO_ACTION', parse: oneOf('error', 'remove'), default: 'error' },
  exposeErrors: { parse: bool, default: false },
  healthPath: { env: 'CLOUDFN_HEALTH_PATH', parse: healthPath, default: DEFAULT_HEALTH_PATH },
  pingPath: { env: 'CLOUDFN_PING_PATH', parse: healthPath, default: DEFAULT_PING_PATH },
  metrics: { env: 'CLOUDFN_METRICS', parse: bool, default: false },
  // The three bounds on memory (docs/configuration.md#memory-bounds): with their defaults a
  // 512 MiB container survives 200 clients that never read a 5 MiB answer and 300 concurrent
  // 8 MiB uploads (test/bench/memory-bounds.mjs).
  memoryBudget: { env: 'CLOUDFN_MEMORY_BUDGET', parse: integer(0), default: 128 * 1024 * 1024 },
  sendTimeout: { env: 'CLOUDFN_SEND_TIMEOUT', parse: integer(0), default: 10_000 },
  maxConnections: { env: 'CLOUDFN_MAX_CONNECTIONS', parse: integer(0), default: 1024 },
  // Shedding under load (docs/configuration.md#under-load; the defaults in docs/decisions.md).
  memoryWaitTimeout: { env: 'CLOUDFN_MEMORY_WAIT_TIMEOUT', parse: integer(0), default: 10_000 },
  overloadThreshold: { env: 'CLOUDFN_OVERLOAD_THRESHOLD', parse: integer(0, 100), default: 80 },
  overloadHeadersTimeout: { env: 'CLOUDFN_OVERLOAD_HEADERS_TIMEOUT', parse: integer(1), default: 5_000 },
  overloadKeepAliveTimeout: { env: 'CLOUDFN_OVERLOAD_KEEP_ALIVE_TIMEOUT', parse: integer(0), default: 1_000 },
  overloadSendTimeout: { env: 'CLOUDFN_OVERLOAD_SEND_TIMEOUT', parse: integer(0), default: 2_000 },
  functionsDir: { env: 'CLOUDFN_FUNCTIONS_DIR', parse: relativeDir, default: 'functions' },
  trustGatewayHeaders: { env: 'CLOUDFN_TRUST_GATEWAY_HEADERS', parse: bool, default: false },
  sdk: { env: 'CLOUDFN_SDK', parse: oneOf('platform', 'stand-in'), default: 'platform' },
  captureConsole: { env: 'CLOUDFN_CAPTURE_CONSOLE', parse: bool, default: true },
};

/**
 * Options that `cloudfn.config.*` may not set: `trigger` is each request's, and `exposeErrors`
 * is for `cloudfn dev` only (a config file deployed with it would send stacks to clients).
 */
export const NOT_IN_CONFIG_FILE = ['trigger', 'exposeErrors'] as const;

/** The scalar options a config file may set; the type of `defineConfig` is derived from it. */
export type ConfigFileOptionKey = Exclude<keyof Scalars, (typeof NOT_IN_CONFIG_FILE)[number]>;

/** One option as a config file sees it: its name, environment variable, default and JSON Schema. */
export interface ConfigOptionRow {
  readonly name: string;
  readonly env: string | undefined;
  readonly default: unknown;
  readonly schema: JsonSchema;
}

/**
 * The options a config file may set, read from the option table itself, so the config file's
 * known keys, `defineConfig`'s type and the shipped JSON Schema follow every option added here.
 * `limits` is separate: see `LIMIT_KEYS`.
 * @example configOptionTable().map((row) => row.name) // ['port', 'host', 'timeout', ...]
 */
export function configOptionTable(): readonly ConfigOptionRow[] {
  const excluded: readonly string[] = NOT_IN_CONFIG_FILE;
  return Object.entries(specs)
    .filter(([name]) => !excluded.includes(name))
    .map(([name, spec]) => ({
      name,
      env: spec.env,
      default: spec.default,
      schema: (spec.parse as Parse<unknown>).schema ?? {},
    }));
}

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
export const optionEnvVars: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ envVarNames(),
);

// A function, called as pure: a bundle whose code never reads the names drops the table.
function envVarNames(): Record<string, string> {
  const names: Record<string, string> = {};
  for (const [key, spec] of Object.entries(specs)) if (spec.env) names[key] = spec.env;
  names['compileCache'] = compileCacheSpec.env!;
  for (const key of LIMIT_KEYS) names[key] = limitSpecs[key].env;
  return names;
}

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

/** The default dev user, and the environment variable of the fields that have one. */
const devUserSpecs: {
  readonly [K in keyof DevUser]-?: { readonly env?: string; readonly default: string | undefined };
} = {
  openid: { env: 'CLOUDFN_DEV_OPENID', default: 'dev-openid' },
  // The emulator's dev app (src/platform/http/client-env.ts DEV_CLIENT_KEY, which runtime/ cannot
  // import; a test keeps the two equal): the caller and the OpenAPI calls name one app.
  appid: { env: 'CLOUDFN_DEV_APPID', default: 'tt-dev-app' },
  unionid: { env: 'CLOUDFN_DEV_UNIONID', default: 'dev-unionid' },
  env: { default: 'development' },
  source: { default: 'miniapp' },
  ip: { default: '127.0.0.1' },
  roomid: { env: 'CLOUDFN_DEV_ROOMID', default: undefined },
  anchorOpenid: { env: 'CLOUDFN_DEV_ANCHOR_OPENID', default: undefined },
  avatarUrl: { default: undefined },
  nickname: { default: undefined },
};

/** The fields of `devUser`, for the config schema. */
export const DEV_USER_KEYS: readonly string[] = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ Object.keys(devUserSpecs),
);

/**
 * The user `cloudfn dev` acts as: each field from its environment variable, then the config
 * file's `devUser`, then the default. A field that is not a non-empty string without control
 * characters throws `CLOUDFN_OPTIONS` naming it.
 * @example resolveDevUser({ env: { CLOUDFN_DEV_OPENID: 'ann' }, config }) // { openid: 'ann', ... }
 */
export function resolveDevUser(sources: OptionSources = {}): DevUser {
  const fromConfig = sources.config?.['devUser'];
  if (fromConfig !== undefined && (typeof fromConfig !== 'object' || fromConfig === null || Array.isArray(fromConfig)))
    throw createError(
      'CLOUDFN_OPTIONS',
      'devUser',
      `must be an object such as { "openid": "ann" }, got ${JSON.stringify(fromConfig)} (from cloudfn.config devUser)`,
    );
  const config = (fromConfig ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (!(key in devUserSpecs))
      throw createError(
        'CLOUDFN_OPTIONS',
        'devUser',
        `${key} is not a field; the fields are ${Object.keys(devUserSpecs).join(', ')} (from cloudfn.config devUser)`,
      );
  }
  const user = {} as Record<string, string>;
  for (const [key, spec] of Object.entries(devUserSpecs)) {
    const fromEnv = spec.env === undefined ? undefined : sources.env?.[spec.env];
    const [raw, where] =
      fromEnv !== undefined && fromEnv !== '' ? [fromEnv, spec.env!] : [config[key], `cloudfn.config devUser.${key}`];
    if (raw === undefined) {
      if (spec.default !== undefined) user[key] = spec.default;
      continue;
    }
    // The nickname is percent-encoded when sent, so any text is fine; the rest go as they are.
    if (typeof raw !== 'string' || raw.trim() === '' || (key !== 'nickname' && /[^\x20-\x7e]/.test(raw)))
      throw createError(
        'CLOUDFN_OPTIONS',
        `devUser.${key}`,
        `must be a non-empty string of printable ASCII (it is sent in a header), got ${JSON.stringify(raw)} (from ${where})`,
      );
    user[key] = raw.trim();
  }
  return user as unknown as DevUser;
}
