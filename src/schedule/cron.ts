/**
 * Cron expressions of `config.schedule`, read with croner (no dependencies, DST-aware, the
 * forms below): 5 fields (`minute hour day month weekday`), 6 with seconds first, or 7 with
 * a year last (the form of WeChat cloud development's timer triggers), `?` for "any", names
 * (`MON-FRI`, `JAN`), `@hourly`-style nicknames. Day-of-month and day-of-week combine as in
 * Vixie cron: either matches. Times are the process's local time (`TZ`).
 */
import { Cron } from 'croner';
import { createScheduleError } from './errors.js';

/** A parsed schedule: its text and the next firing after a time. */
export interface Schedule {
  readonly expression: string;
  /** The first firing strictly after `after` (ms since the epoch), or undefined when none is left. */
  next(after: number): number | undefined;
}

/**
 * Parses a schedule; throws `CLOUDFN_BAD_SCHEDULE` naming `where` and the value when it is not
 * a cron expression or can never fire.
 * @example parseSchedule('0 0 * * * *', 'functions/cleanup.ts').next(Date.now())
 */
export function parseSchedule(expression: unknown, where: string, now = Date.now()): Schedule {
  if (typeof expression !== 'string' || expression.trim() === '')
    throw createScheduleError('CLOUDFN_BAD_SCHEDULE', where, String(expression), 'is not a non-empty string');
  let cron: Cron;
  try {
    cron = new Cron(expression.trim(), { paused: true });
  } catch (error) {
    const detail = (error as Error).message.replace(/^CronPattern: /, '');
    throw createScheduleError('CLOUDFN_BAD_SCHEDULE', where, expression, `is not a cron expression (${detail})`);
  }
  if (cron.nextRun(new Date(now)) === null)
    throw createScheduleError('CLOUDFN_BAD_SCHEDULE', where, expression, 'never fires (no such date is left)');
  return {
    expression,
    next(after) {
      return cron.nextRun(new Date(after))?.getTime();
    },
  };
}
