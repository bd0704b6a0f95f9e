/**
 * The timers as a local service of `cloudfn dev`: the same extension as under `cloudfn start`
 * (serve-timers.ts), with the trigger endpoint on, a bad `config.schedule` logged rather than
 * fatal (dev keeps serving and shows it), and the timers re-armed whenever the functions change.
 */
import type { ServiceContext } from '../local-service.js';
import type { SchedulerClock } from './scheduler.js';
import { serveTimers, type TimersExtension } from './serve-timers.js';

/** What the timers read of `startDevServer`'s options. */
export interface TimersSettings {
  /** The clock of the timers of `config.schedule` (tests pass a fake one). @default the system clock */
  clock?: SchedulerClock;
  /** Cut a timer firing not answered within this many ms (tests pass a short one). @default 60000, the platform's */
  firingLimitMs?: number;
}

/**
 * The timers' extension for one dev server.
 * @example const extensions = [timersService(context)]
 */
export function timersService(context: ServiceContext): TimersExtension {
  const { clock, firingLimitMs } = context.settings as TimersSettings;
  const timers = serveTimers({
    endpoint: true,
    fleetLock: false,
    onBadSchedule: 'log',
    ...(clock === undefined ? {} : { clock }),
    ...(firingLimitMs === undefined ? {} : { firingLimitMs }),
  });
  context.onFunctions(() => timers.scheduler()?.sync());
  return timers;
}
