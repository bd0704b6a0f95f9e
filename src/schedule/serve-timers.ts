/**
 * The timers as a server extension (runtime/serve/extension.ts), the same under `cloudfn
 * start` and `cloudfn dev`: `prepare` checks every `config.schedule` (under start a bad one
 * stops start-up, naming the function and the value; dev logs it and keeps serving) and arms
 * the timers; the trigger endpoint is a hook when asked for; the console's panel lists the
 * schedules. The lock is chosen here: Redis when the fleet has it, else the primary under
 * `--workers`, else none.
 */
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { RouteHandler } from '../../runtime/serve/extension.js';
import type { ServiceExtension } from '../local-service.js';
import { jsonWarn } from '../fleet/connect.js';
import { resolveRedisSettings } from '../fleet/settings.js';
import { type FireLock, primaryLock, redisLock } from './lock.js';
import type { TimersMeta } from './protocol.js';
import { Scheduler, type SchedulerOptions } from './scheduler.js';
import { triggerRoute } from './trigger-route.js';

/** Options of `serveTimers`. */
export interface ServeTimersOptions {
  /** Serve `POST ${CLOUDFN_PREFIX}/trigger/<function>` (`--trigger-endpoint`; always on in dev). @default false */
  endpoint?: boolean;
  /** @default process.env (for the Redis setting) */
  env?: NodeJS.ProcessEnv;
  /** Share the firings with a fleet (Redis, or the primary under `--workers`); dev fires alone. @default true */
  fleetLock?: boolean;
  /** A bad `config.schedule`: stop start-up, or log it and serve on (dev). @default 'throw' */
  onBadSchedule?: SchedulerOptions['onBadSchedule'];
  /** The clock of the timers (tests pass a fake one). @default the system clock */
  clock?: SchedulerOptions['clock'];
  /** Cut a firing not answered within this many ms. @default 60000, the platform's */
  firingLimitMs?: number;
}

/** The timers' extension, and its scheduler once `prepare` ran. */
export interface TimersExtension extends ServiceExtension {
  scheduler(): Scheduler | undefined;
}

/**
 * The extension that makes `serve()` fire the scheduled functions.
 * @example await startProject(root, { extensions: [serveTimers({ endpoint: false })] })
 */
export function serveTimers(options: ServeTimersOptions = {}): TimersExtension {
  let scheduler: Scheduler | undefined;
  let running: Server | undefined;
  return {
    name: 'timers',
    scheduler: () => scheduler,
    prepare(app) {
      scheduler = new Scheduler(app, {
        lock: options.fleetLock === false ? undefined : chooseLock(options.env ?? process.env),
        onBadSchedule: options.onBadSchedule ?? 'throw',
        // Fired through the running server (its hooks and pipeline), once it exists.
        server: () => running,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.firingLimitMs === undefined ? {} : { firingLimitMs: options.firingLimitMs }),
      });
      scheduler.sync();
    },
    routes: (): Record<string, RouteHandler> =>
      options.endpoint === true && scheduler !== undefined ? { trigger: triggerRoute(scheduler) } : {},
    upgrade: (server) => {
      running = server;
    },
    panel: { meta: (): TimersMeta => ({ schedules: scheduler?.list() ?? [] }) },
  };
}

function chooseLock(env: NodeJS.ProcessEnv): FireLock | undefined {
  const redis = resolveRedisSettings({ env });
  if (redis !== undefined) return redisLock(redis, jsonWarn);
  return cluster.isWorker && process.send !== undefined ? primaryLock() : undefined;
}
