/**
 * The timer triggers of a project, as a deploy must create them on the platform: for each
 * function with `config.schedule` (in its module, or under `functions` in cloudfn.config), its
 * name, cron expression, the params every firing sends, and the time a firing may take.
 * `cloudfn build` writes them into `cloudfn-build.json` and prints them (docs/deploy.md#timer-triggers).
 */
import type { FunctionConfig, FunctionSpec } from '../../runtime/types.js';
import { PLATFORM_FIRING_LIMIT_MS } from '../schedule/fire.js';

/** One timer trigger to create on the platform. */
export interface TimerTrigger {
  /** The function it calls (`settle`, `jobs/cleanup`). */
  function: string;
  /** The cron expression, as written in `config.schedule`. */
  cron: string;
  /** The JSON body of every firing (`{}` for the string form). */
  params: unknown;
  /** ms a firing may take: the function's `timeout`, cut at the platform's 60 s. */
  timeout: number;
}

/** What `timerTriggers` reads besides the functions: cloudfn.config's `timeout` and `functions`. */
export interface TimerConfig {
  timeout?: unknown;
  functions?: Readonly<Record<string, FunctionConfig>>;
}

/**
 * The timer triggers of `functions`, in name order.
 * @example timerTriggers(project.functions, config) // [{ function: 'settle', cron: '0 * * * * *', params: {}, timeout: 60000 }]
 */
export function timerTriggers(functions: readonly FunctionSpec[], config: TimerConfig = {}): TimerTrigger[] {
  const triggers: TimerTrigger[] = [];
  for (const fn of functions) {
    const merged: FunctionConfig = { ...config.functions?.[fn.name], ...fn.config };
    const schedule = merged.schedule;
    if (schedule === undefined) continue;
    const spec = typeof schedule === 'string' ? { cron: schedule, params: {} } : schedule;
    const own = merged.timeout ?? (typeof config.timeout === 'number' ? config.timeout : PLATFORM_FIRING_LIMIT_MS);
    triggers.push({
      function: fn.name,
      cron: spec.cron,
      params: spec.params ?? {},
      timeout: Math.min(own, PLATFORM_FIRING_LIMIT_MS),
    });
  }
  return triggers.sort((a, b) => a.function.localeCompare(b.function));
}

/**
 * The list `cloudfn build` prints after its table: the triggers to create on the platform.
 * @example process.stdout.write(formatTimerTriggers(triggers, 'dist/cloudfn-build.json'))
 */
export function formatTimerTriggers(triggers: readonly TimerTrigger[], manifest: string): string {
  if (triggers.length === 0) return '';
  const lines = triggers.map(
    (t) => `  ${t.function}  cron "${t.cron}"  params ${JSON.stringify(t.params)}  timeout ${t.timeout} ms`,
  );
  return `\ntimer triggers to create on the platform (also in ${manifest}, "timers"):\n${lines.join('\n')}\n`;
}
