/**
 * Every runtime option, read in one place: a command-line flag, then an environment variable,
 * then `cloudfn.config.*`, then the default, each through the option's validator. A bad value
 * throws a `CloudfnError` (`CLOUDFN_OPTIONS`) naming the option, where it came from and the fix.
 * This file holds the option table and its readers; beside it, in options/, are the type
 * (runtime-options.ts), the validators (parsers.ts), picking one value (pick.ts), the limits
 * (limits.ts); the option kit they use is runtime/option-kit.ts. Import them from here.
 */
import { createError } from './errors.js';
import type { Trigger } from './types.js';
import { LIMIT_KEYS, limitSpecs } from './options/limits.js';
import type { JsonSchema, OptionSpec, Parse } from './option-kit.js';
import {
  allowedHosts,
  bool,
  headerName,
  healthPath,
  innerCallUrls,
  integer,
  oneOf,
  relativeDir,
  text,
  textList,
} from './options/parsers.js';
import { type OptionSources, pick, pickFrom } from './options/pick.js';
import type { RuntimeOptions } from './options/runtime-options.js';

export type { RuntimeOptions } from './options/runtime-options.js';
export type { JsonSchema } from './option-kit.js';
export type { OptionSources } from './options/pick.js';
export { defaultLimits, LIMIT_ENV, LIMIT_KEYS } from './options/limits.js';
/** The validator of `allowedHosts`, for `cloudfn platform`, which reads it from its own flag and variable. */
export { allowedHosts as parseAllowedHosts } from './options/parsers.js';

/**
 * The one prefix of the paths cloudfn answers before routing: health, metrics, and the local
 * services' routes (`/_cloudfn/<name>/…`). Discovery skips names starting with `_`, so no
 * function has it; every other path under it is built from this constant.
 */
export const CLOUDFN_PREFIX = '/_cloudfn';

/** Where `--metrics` serves the Prometheus text. */
export const METRICS_PATH = `${CLOUDFN_PREFIX}/metrics`;

/** The default health path. */
export const DEFAULT_HEALTH_PATH = `${CLOUDFN_PREFIX}/health`;

/** The path the platform's container services must answer (platform contract, containers). */
const DEFAULT_PING_PATH = '/v1/ping';

type Scalars = Omit<RuntimeOptions, 'limits' | 'limitSources'>;

/** One row per option: its environment variable, validator and default. */
const specs: { [K in keyof Scalars]: OptionSpec<Scalars[K]> } = {
  port: { env: 'PORT', parse: integer(0, 65535), default: 8000 },
  host: { env: 'HOST', parse: text, default: '0.0.0.0' },
  // Read by cloudfn dev's and cloudfn platform's Host check (src/dev/host-guard.ts), not by start.
  allowedHosts: { env: 'CLOUDFN_ALLOWED_HOSTS', parse: allowedHosts, default: [] },
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
  functionsIgnore: { env: 'CLOUDFN_FUNCTIONS_IGNORE', parse: textList, default: [] },
  // A module whose top-level await has not settled by then (a connect to a host that does not
  // answer) is marked failed instead of holding the dev server (docs/dev.md#a-function-that-never-loads).
  loadTimeout: { env: 'CLOUDFN_LOAD_TIMEOUT', parse: integer(1, 600_000), default: 10_000 },
  trustGatewayHeaders: { env: 'CLOUDFN_TRUST_GATEWAY_HEADERS', parse: bool, default: false },
  sdk: { env: 'CLOUDFN_SDK', parse: oneOf('platform', 'stand-in'), default: 'platform' },
  captureConsole: { env: 'CLOUDFN_CAPTURE_CONSOLE', parse: bool, default: true },
  // A self-hosted fleet's inner calls (docs/services.md#self-hosted-fleets); on the platform, none.
  innerCallUrls: { env: 'CLOUDFN_INNER_CALL_URLS', parse: innerCallUrls, default: {} },
};

/** One variable per service, e.g. `CLOUDFN_INNER_CALL_PROFILE`; `_` stands for `-` in the id. */
export const INNER_CALL_VAR_PREFIX = 'CLOUDFN_INNER_CALL_';

/** `CLOUDFN_INNER_CALL_<ID>` variables over the `innerCallUrls` option: a variable wins for its id. */
function withInnerCallVars(urls: Readonly<Record<string, string>>, env: OptionSources['env']): Record<string, string> {
  const out = { ...urls };
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!name.startsWith(INNER_CALL_VAR_PREFIX) || name === 'CLOUDFN_INNER_CALL_URLS' || value === undefined) continue;
    const id = name.slice(INNER_CALL_VAR_PREFIX.length).toLowerCase().replaceAll('_', '-');
    try {
      Object.assign(out, innerCallUrls({ [id]: value }, name));
    } catch (error) {
      throw createError('CLOUDFN_OPTIONS', 'innerCallUrls', (error as Error).message);
    }
  }
  return out;
}

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
const compileCacheSpec: OptionSpec<string | false | undefined> = {
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

/**
 * Resolves every runtime option from its sources, most specific first.
 * @example resolveOptions({ flags: { port: '3000' }, env: process.env, config: fileConfig })
 */
export function resolveOptions(sources: OptionSources = {}): RuntimeOptions {
  const options = {} as Record<string, unknown>;
  for (const [name, spec] of Object.entries(specs)) options[name] = pick(name, spec as OptionSpec<unknown>, sources);
  const configLimits = (sources.config?.['limits'] ?? {}) as Record<string, unknown>;
  const limits = {} as Record<string, number>;
  const limitSources = {} as Record<string, string>;
  for (const name of LIMIT_KEYS) {
    const spec: OptionSpec<number> = {
      env: limitSpecs[name].env,
      parse: integer(0),
      default: limitSpecs[name].default,
    };
    [limits[name], limitSources[name]] = pickFrom(
      name,
      spec,
      { flags: sources.flags, env: sources.env, config: configLimits } as OptionSources,
      configLimits,
    );
  }
  options['limits'] = limits;
  options['limitSources'] = limitSources;
  options['innerCallUrls'] = withInnerCallVars(options['innerCallUrls'] as Record<string, string>, sources.env);
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
