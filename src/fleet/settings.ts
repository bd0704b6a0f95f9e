/**
 * Where a fleet's shared state lives: the one Redis setting, read in one place. A `redis`
 * option given in code wins; then `CLOUDFN_REDIS_URL`; then the variables a container
 * platform's Redis component injects (`REDIS_ADDRESS`, `REDIS_USERNAME`, `REDIS_PASSWORD`).
 * Without any of them every store stays in memory, as for a single instance. The timeout and
 * the key prefix are read through the option kit (runtime/option-kit.ts).
 */
import { envArea, type OptionSpec, readOptions, trimmed } from '../../runtime/option-kit.js';
import { createFleetError } from './errors.js';
import { REDIS_ENV_VARS } from './setting-given.js';

export { REDIS_ENV_VARS, redisSettingGiven } from './setting-given.js';

/** The smallest client cloudfn needs: the commands its stores send. ioredis' `Redis` fits. */
export interface RedisLike {
  set(key: string, value: string, ...args: (string | number)[]): Promise<string | null>;
  get(key: string): Promise<string | null>;
  del(...keys: string[]): Promise<number>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** The `redis` option of verifiers and the media client: a URL, or a client you made. */
export type RedisOption = string | RedisLike;

/** What `resolveRedisSettings` found. */
export interface RedisSettings {
  /** The URL to connect to, when cloudfn makes the client. */
  url?: string;
  /** The client to use, when given in code. */
  client?: RedisLike;
  /** Where the setting came from, for messages. */
  source: 'option' | 'CLOUDFN_REDIS_URL' | 'REDIS_ADDRESS';
  /** Most time one Redis command may take before the store falls back. @default 300 */
  commandTimeoutMs: number;
  /** Prefix of every key cloudfn writes. @default 'cloudfn:' */
  keyPrefix: string;
}

/** Where the settings come from. */
export interface RedisSources {
  /** The `redis` option given in code. */
  option?: RedisOption | undefined;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_TIMEOUT_MS = 300;

/** Read from the environment only; a blank variable is unset. */
const fleetArea = envArea((_name, where, detail) => createFleetError('FLEET_BAD_SETTING', where, detail));

const specs = {
  commandTimeoutMs: {
    env: REDIS_ENV_VARS.timeout,
    default: DEFAULT_TIMEOUT_MS,
    parse: (raw, where) => {
      const text = trimmed(raw, where);
      const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isInteger(value) || value < 1 || value > 60_000)
        throw new TypeError(`must be a whole number of milliseconds from 1 to 60000, got ${JSON.stringify(text)}`);
      return value;
    },
  } as OptionSpec<number>,
  keyPrefix: { env: REDIS_ENV_VARS.prefix, parse: trimmed, default: 'cloudfn:' },
};

function checkUrl(url: string, where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw createFleetError(
      'FLEET_BAD_SETTING',
      where,
      `must be a URL such as redis://localhost:6379, got ${JSON.stringify(url)}`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw createFleetError(
      'FLEET_BAD_SETTING',
      where,
      `must start with redis:// or rediss://, got ${JSON.stringify(url)}`,
    );
  }
  return url;
}

/**
 * Reads the Redis setting, or undefined when none is given (every store stays in memory).
 * @example resolveRedisSettings({ env: process.env }) // { url: 'redis://redis:6379', source: 'CLOUDFN_REDIS_URL', ... }
 */
export function resolveRedisSettings(sources: RedisSources = {}): RedisSettings | undefined {
  const env = sources.env ?? process.env;
  const base = readOptions(specs, { env }, fleetArea);
  const option = sources.option;
  if (option !== undefined) {
    if (typeof option === 'string') return { ...base, url: checkUrl(option, 'the redis option'), source: 'option' };
    if (
      typeof option === 'object' &&
      option !== null &&
      typeof option.set === 'function' &&
      typeof option.eval === 'function'
    ) {
      return { ...base, client: option, source: 'option' };
    }
    throw createFleetError('FLEET_BAD_SETTING', 'the redis option', 'must be a redis:// URL or an ioredis client');
  }
  const url = env[REDIS_ENV_VARS.url]?.trim();
  if (url !== undefined && url !== '')
    return { ...base, url: checkUrl(url, REDIS_ENV_VARS.url), source: 'CLOUDFN_REDIS_URL' };
  const address = env[REDIS_ENV_VARS.address]?.trim();
  if (address !== undefined && address !== '') {
    if (!/^[^\s:/]+(:\d{1,5})?$/.test(address)) {
      throw createFleetError(
        'FLEET_BAD_SETTING',
        REDIS_ENV_VARS.address,
        `must be host or host:port, got ${JSON.stringify(address)}`,
      );
    }
    const user = env[REDIS_ENV_VARS.username] ?? '';
    const password = env[REDIS_ENV_VARS.password] ?? '';
    const auth = user !== '' || password !== '' ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}@` : '';
    return { ...base, url: `redis://${auth}${address}`, source: 'REDIS_ADDRESS' };
  }
  return undefined;
}
