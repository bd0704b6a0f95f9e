/**
 * Which session directory a process's gateway gets, chosen in this one place: with a Redis
 * setting (`CLOUDFN_REDIS_URL`, `REDIS_ADDRESS`) every process of the fleet, each worker of
 * `--workers` included, shares its sessions through Redis (redis-directory.ts); else a worker of
 * `cloudfn start --workers` shares them with the other workers through the primary
 * (worker-directory.ts); a process alone keeps them to itself (local-directory.ts).
 */
import cluster from 'node:cluster';
import { redisSettingGiven, resolveRedisSettings } from '../settings.js';
import { LocalDirectory } from './local-directory.js';
import { RedisSessionDirectory } from './redis-directory.js';
import type { DirectoryFactory } from './session-directory.js';
import { processPort, WorkerDirectory } from './worker-directory.js';

/**
 * The directory factory for this process. A bad Redis setting or directory setting throws
 * FLEET_BAD_SETTING, naming it.
 * @example new Gateway({ call, identity, directory: pickDirectory(process.env, { workerOfPrimary: false }) })
 */
export function pickDirectory(env: NodeJS.ProcessEnv, where: { workerOfPrimary: boolean }): DirectoryFactory {
  if (redisSettingGiven(undefined, env)) {
    const settings = resolveRedisSettings({ env })!;
    return (local) => new RedisSessionDirectory(local, settings, { env });
  }
  // Only a worker whose primary is cloudfn's runs the hub: a cluster of another manager's (PM2's
  // cluster mode) has none, and each of its processes keeps its own sessions.
  if (where.workerOfPrimary && cluster.isWorker && process.send !== undefined)
    return (local) => new WorkerDirectory(local, processPort());
  return (local) => new LocalDirectory(local);
}
