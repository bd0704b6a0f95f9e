/**
 * The Redis client of a process: ioredis (client-module.ts), loaded only when a Redis setting
 * is used, so a function that does not use Redis never loads it. One client per URL per
 * process (a pool of one connection is what every store of an instance shares); commands time
 * out after `commandTimeoutMs`, fail at once while disconnected instead of queueing, and the
 * client reconnects in the background. Its `error` events are always handled: an outage is
 * reported once through `onWarning`, and again when it ends.
 */
import { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import { createJsonSink } from '../../runtime/log/sinks.js';
import { loadRedisClientModule } from './client-module.js';
import type { RedisLike, RedisSettings } from './settings.js';

/** How warnings about the shared store are reported. @default a JSON line on stdout */
export type FleetWarn = (message: string) => void;

/**
 * A `warn` JSON line on stdout, like every other line of the process (collectors read stdout
 * as JSON). A logger per line: an outage warns twice (down, back), so nothing is kept.
 */
export const jsonWarn: FleetWarn = (message) => {
  const logger = new Logger(createJsonSink());
  logger.line('warn', '', RUNTIME_FUNCTION, message);
  logger.flush();
};

/** One client per URL: every store of this process shares it. */
const clients = new Map<string, Promise<RedisLike>>();

/**
 * The client for `settings`: the one given in code, or one made (once per URL) from its URL.
 * Rejects with FLEET_NO_CLIENT when the client cannot be loaded (client-module.ts).
 * @example const redis = await redisClient(settings, (m) => logger.warn(m))
 */
export function redisClient(settings: RedisSettings, warn: FleetWarn = jsonWarn): Promise<RedisLike> {
  if (settings.client !== undefined) return Promise.resolve(settings.client);
  const url = settings.url!;
  let client = clients.get(url);
  if (client === undefined) {
    client = connect(url, settings, warn);
    clients.set(url, client);
    client.catch(() => clients.delete(url));
  }
  return client;
}

async function connect(url: string, settings: RedisSettings, warn: FleetWarn): Promise<RedisLike> {
  const mod = await loadRedisClientModule(settings.source);
  const redis = new mod.default(url, {
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(1000, settings.commandTimeoutMs * 3),
    // Fail a command at once while disconnected: the store's fallback is faster than a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect with a capped back-off, forever: Redis coming back restores sharing.
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
    lazyConnect: false,
  });
  let down = false;
  redis.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    warn(
      `Redis at ${redact(url)} is unreachable (${(error as Error).message}); shared stores use their fallbacks until it is back`,
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    warn(`Redis at ${redact(url)} is back; shared stores use it again`);
  });
  // Commands fail at once until the first connection is ready, so wait for it (or for the
  // first failure: then commands fail fast, stores fall back, and the client keeps trying).
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, Math.max(1000, settings.commandTimeoutMs * 3));
    redis.on('ready', done);
    redis.on('error', done);
  });
  return redis;
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/**
 * Closes every client this process made (tests, and a graceful exit).
 * @example await closeRedisClients()
 */
export async function closeRedisClients(): Promise<void> {
  const pending = [...clients.values()];
  clients.clear();
  await Promise.all(
    pending.map(async (client) => {
      const redis = (await client.catch(() => undefined)) as
        | { quit?: () => Promise<unknown>; disconnect?: () => void }
        | undefined;
      await redis?.quit?.().catch(() => redis.disconnect?.());
    }),
  );
}
