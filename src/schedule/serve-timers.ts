/**
 * Timers for `cloudfn start`: what `serve()` is given so that the scheduled functions fire —
 * a `prepare` step that checks every `config.schedule` (a bad one stops start-up, naming the
 * function and the value) and arms the timers, and, when asked, the trigger endpoint. The lock
 * is chosen here: Redis when the fleet has it, else the primary under `--workers`, else none.
 */
import cluster from 'node:cluster';
import type { App } from '../../runtime/app.js';
import type { BeforeHook } from '../../runtime/serve/http-server.js';
import { jsonWarn } from '../fleet/connect.js';
import { resolveRedisSettings } from '../fleet/settings.js';
import { type FireLock, primaryLock, redisLock } from './lock.js';
import { Scheduler } from './scheduler.js';
import { triggerHook } from './trigger-route.js';

/** Options of `serveTimers`. */
export interface ServeTimersOptions {
  /** Serve `POST /_cloudfn/trigger/<function>` (`--trigger-endpoint`). @default false */
  endpoint?: boolean;
  /** @default process.env (for the Redis setting) */
  env?: NodeJS.ProcessEnv;
}

/** What `serve()` takes to run the timers. */
export interface ServeTimers {
  prepare: (app: App) => void;
  before: BeforeHook[];
  /** The scheduler, once `prepare` ran. */
  scheduler(): Scheduler | undefined;
}

/**
 * The `prepare` step and hooks that make `serve()` fire the scheduled functions.
 * @example const timers = serveTimers({ endpoint: false }); await startProject(root, { ...timers })
 */
export function serveTimers(options: ServeTimersOptions = {}): ServeTimers {
  let scheduler: Scheduler | undefined;
  const before: BeforeHook[] = [];
  if (options.endpoint === true) {
    const hook = (): BeforeHook | undefined => (scheduler === undefined ? undefined : triggerHook(scheduler));
    let bound: BeforeHook | undefined;
    before.push((req, res) => (bound ??= hook())?.(req, res) ?? false);
  }
  return {
    before,
    scheduler: () => scheduler,
    prepare(app) {
      scheduler = new Scheduler(app, { lock: chooseLock(options.env ?? process.env), onBadSchedule: 'throw' });
      scheduler.sync();
    },
  };
}

function chooseLock(env: NodeJS.ProcessEnv): FireLock | undefined {
  const redis = resolveRedisSettings({ env });
  if (redis !== undefined) return redisLock(redis, jsonWarn);
  return cluster.isWorker && process.send !== undefined ? primaryLock() : undefined;
}
