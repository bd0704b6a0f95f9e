/**
 * Who fires a timer when several servers share a schedule. A `FireLock` is asked once per
 * firing (`timer:<function>:<scheduled ms>`, under the fleet's key prefix in Redis): the one that gets it fires, the others
 * skip. In one process every firing is its own (no lock); under `--workers` the primary grants
 * each key once (over the cluster's IPC channel); with Redis configured (`CLOUDFN_REDIS_URL`)
 * a `SET NX PX` grants it once across the fleet.
 */
import cluster from 'node:cluster';
import { redisClient } from '../fleet/connect.js';
import type { RedisSettings } from '../fleet/settings.js';
import { sendToWorker, type WorkerChannel } from '../../runtime/serve/worker-message.js';

/** Resolves true when this server should fire the firing named `key`. */
export type FireLock = (key: string, ttlMs: number) => Promise<boolean>;

const LOCK_MESSAGE = 'cloudfn:timer-lock';

interface LockMessage {
  type: typeof LOCK_MESSAGE;
  id: number;
  key: string;
  ttlMs: number;
  granted?: boolean;
}

function isLockMessage(message: unknown): message is LockMessage {
  return typeof message === 'object' && message !== null && (message as LockMessage).type === LOCK_MESSAGE;
}

/**
 * A lock in Redis: `SET key 1 NX PX ttl`. When Redis cannot answer, the firing is skipped
 * rather than risked twice, and a warning says so.
 * @example const lock = redisLock(settings, (m) => logger.warn(m))
 */
export function redisLock(settings: RedisSettings, warn: (message: string) => void): FireLock {
  return async (key, ttlMs) => {
    try {
      const redis = await redisClient(settings, warn);
      return (await redis.set(settings.keyPrefix + key, '1', 'PX', ttlMs, 'NX')) === 'OK';
    } catch (error) {
      warn(`timer ${key} skipped: the Redis lock could not be taken (${(error as Error).message})`);
      return false;
    }
  };
}

/**
 * In a worker of `--workers`: asks the primary, which grants each key to one worker.
 * @example const lock = primaryLock()
 */
export function primaryLock(): FireLock {
  let nextId = 0;
  return (key, ttlMs) =>
    new Promise((resolve) => {
      const id = nextId++;
      const onMessage = (message: unknown): void => {
        if (!isLockMessage(message) || message.id !== id || message.granted === undefined) return;
        process.off('message', onMessage);
        resolve(message.granted);
      };
      process.on('message', onMessage);
      process.send!({ type: LOCK_MESSAGE, id, key, ttlMs } satisfies LockMessage);
    });
}

/**
 * In the primary of `--workers`: grants each key to the first worker that asks, for its ttl.
 * Returns how to stop.
 * @example const stop = grantLocksToWorkers()
 */
export function grantLocksToWorkers(now: () => number = Date.now): () => void {
  const held = new Map<string, number>();
  const onMessage = (worker: WorkerChannel, message: unknown): void => {
    if (!isLockMessage(message) || message.granted !== undefined) return;
    const at = now();
    for (const [key, until] of held) if (until <= at) held.delete(key);
    const granted = !held.has(message.key);
    if (granted) held.set(message.key, at + message.ttlMs);
    sendToWorker(worker, { ...message, granted } satisfies LockMessage);
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
