/**
 * Which session directory a process's gateway gets, chosen in this one place: a worker of
 * `cloudfn start --workers` shares its sessions with the other workers through the primary
 * (worker-directory.ts); a process alone keeps them to itself (local-directory.ts). A fleet on
 * Redis (`CLOUDFN_REDIS_URL`) plugs its directory in here, before the others.
 */
import cluster from 'node:cluster';
import { LocalDirectory } from './local-directory.js';
import type { DirectoryFactory } from './session-directory.js';
import { processPort, WorkerDirectory } from './worker-directory.js';

/**
 * The directory factory for this process.
 * @example new Gateway({ call, identity, directory: pickDirectory(process.env, { workerOfPrimary: false }) })
 */
export function pickDirectory(_env: NodeJS.ProcessEnv, where: { workerOfPrimary: boolean }): DirectoryFactory {
  // Only a worker whose primary is cloudfn's runs the hub: a cluster of another manager's (PM2's
  // cluster mode) has none, and each of its processes keeps its own sessions.
  if (where.workerOfPrimary && cluster.isWorker && process.send !== undefined)
    return (local) => new WorkerDirectory(local, processPort());
  return (local) => new LocalDirectory(local);
}
