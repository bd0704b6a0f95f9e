/**
 * The timers of `config.schedule`: one per scheduled function, armed for its next firing and
 * re-armed after it. `sync()` re-reads the app's functions (dev reloads call it), `fire()`
 * fires one on demand, `stop()` clears every timer (the app's shutdown calls it). The clock
 * and the lock are injectable: tests use a fake clock, fleets a Redis lock (lock.ts).
 */
import type { Server } from 'node:http';
import type { App } from '../../runtime/app.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import { appServer } from '../../runtime/serve/in-memory.js';
import { parseSchedule, type Schedule } from './cron.js';
import { createScheduleError } from './errors.js';
import { fireTimer, PLATFORM_FIRING_LIMIT_MS, type FireResult } from './fire.js';
import type { FireLock } from './lock.js';
import type { ScheduledFunction } from './protocol.js';

/** The time and timers a scheduler uses. @default Date.now, setTimeout and clearTimeout */
export interface SchedulerClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Options of `Scheduler`. */
export interface SchedulerOptions {
  /** @default the system clock */
  clock?: SchedulerClock;
  /**
   * The running server, whose hooks and pipeline the firings pass (`serveTimers` gives it).
   * @default a server of the app's own, without hooks
   */
  server?: () => Server | undefined;
  /** Asked before each scheduled firing; false skips it. @default none: every firing is this server's */
  lock?: FireLock;
  /**
   * A bad `config.schedule`: `throw` stops (`cloudfn start` at start-up), `log` logs it and
   * leaves that function unscheduled (`cloudfn dev`, which keeps serving). @default 'throw'
   */
  onBadSchedule?: 'throw' | 'log';
  /**
   * A firing not answered within this many ms is cut (the connection closed, `service.signal`
   * aborted) with an error line, as the platform stops waiting after 60 s. @default 60000
   */
  firingLimitMs?: number;
}

interface Entry {
  schedule: Schedule;
  params: unknown;
  /** The params as JSON, to see a reload change them. */
  paramsText: string;
  next: number | undefined;
  timer: unknown;
}

/** How long a lock is held: past any clock skew between servers, short enough to expire. */
const LOCK_TTL_MS = 60_000;
/** setTimeout's longest delay (about 24.8 days); a later firing is reached in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class Scheduler {
  readonly #app: App;
  readonly #clock: SchedulerClock;
  readonly #lock: FireLock | undefined;
  readonly #onBad: 'throw' | 'log';
  readonly #limitMs: number;
  /** The server firings are written to (in memory): the running one's, else one of its own. */
  readonly #server: () => Server;
  #own: Server | undefined;
  readonly #entries = new Map<string, Entry>();
  #stopped = false;

  constructor(app: App, options: SchedulerOptions = {}) {
    this.#app = app;
    this.#clock = options.clock ?? systemClock;
    this.#lock = options.lock;
    this.#onBad = options.onBadSchedule ?? 'throw';
    this.#limitMs = options.firingLimitMs ?? PLATFORM_FIRING_LIMIT_MS;
    this.#server = () => options.server?.() ?? (this.#own ??= appServer(app));
    app.onShutdown(() => this.stop());
  }

  /** Arms, re-arms or drops timers to match the app's functions now. */
  sync(): void {
    if (this.#stopped) return;
    const seen = new Set<string>();
    for (const fn of this.#app.router.list()) {
      const config = fn.config.schedule;
      if (config === undefined) continue;
      const expression = typeof config === 'string' ? config : config.cron;
      const params = typeof config === 'string' ? {} : (config.params ?? {});
      const paramsText = JSON.stringify(params);
      const current = this.#entries.get(fn.name);
      if (current?.schedule.expression === expression && current.paramsText === paramsText) {
        seen.add(fn.name);
        continue;
      }
      let schedule: Schedule;
      try {
        schedule = parseSchedule(expression, `${fn.file} (function ${fn.name})`, this.#clock.now());
      } catch (error) {
        if (this.#onBad === 'throw') throw error;
        this.#app.logger.line('error', '', fn.name, (error as Error).message, { code: 'CLOUDFN_BAD_SCHEDULE' });
        continue;
      }
      seen.add(fn.name);
      if (current !== undefined) this.#clock.clearTimeout(current.timer);
      const entry: Entry = { schedule, params, paramsText, next: undefined, timer: undefined };
      this.#entries.set(fn.name, entry);
      this.#arm(fn.name, entry, this.#clock.now());
    }
    for (const [name, entry] of this.#entries) {
      if (seen.has(name)) continue;
      this.#clock.clearTimeout(entry.timer);
      this.#entries.delete(name);
    }
  }

  /** The scheduled functions and their next firings. */
  list(): ScheduledFunction[] {
    return [...this.#entries].map(([name, entry]) => ({
      name,
      schedule: entry.schedule.expression,
      params: entry.params,
      next: entry.next === undefined ? undefined : new Date(entry.next).toISOString(),
    }));
  }

  /**
   * Fires `name` now, on demand (`x-cloudfn-manual: true`), without asking the lock. Rejects with
   * `CLOUDFN_TRIGGER_NOT_FOUND` when it has no schedule.
   * @example const { status, logid } = await scheduler.fire('cleanup')
   */
  fire(name: string): Promise<FireResult> {
    const entry = this.#entries.get(name);
    if (entry === undefined) {
      const names = [...this.#entries.keys()];
      return Promise.reject(
        createScheduleError('CLOUDFN_TRIGGER_NOT_FOUND', name, names.length === 0 ? '(none)' : names.join(', ')),
      );
    }
    return this.#send(name, entry, this.#clock.now(), true);
  }

  /** Clears every timer; later `sync()` calls do nothing. */
  stop(): void {
    this.#stopped = true;
    for (const entry of this.#entries.values()) this.#clock.clearTimeout(entry.timer);
    this.#own?.closeAllConnections();
  }

  #arm(name: string, entry: Entry, after: number): void {
    entry.next = entry.schedule.next(after);
    if (entry.next === undefined) return;
    const due = entry.next;
    const wait = (): void => {
      const left = due - this.#clock.now();
      entry.timer =
        left > MAX_DELAY_MS
          ? this.#clock.setTimeout(wait, MAX_DELAY_MS)
          : this.#clock.setTimeout(ring, Math.max(0, left));
    };
    const ring = (): void => {
      if (this.#stopped || this.#entries.get(name) !== entry) return;
      // The next firing counts from the one due, not from now: a late timer skips none.
      this.#arm(name, entry, Math.max(due, this.#clock.now() - 1));
      void this.#due(name, entry, due);
    };
    wait();
  }

  async #due(name: string, entry: Entry, due: number): Promise<void> {
    try {
      if (this.#lock !== undefined && !(await this.#lock(`timer:${name}:${due}`, LOCK_TTL_MS))) return;
      if (this.#stopped || this.#app.closing) return;
      await this.#send(name, entry, due, false);
    } catch (error) {
      this.#app.logger.line('error', '', RUNTIME_FUNCTION, `timer of ${name} failed: ${(error as Error).message}`);
    }
  }

  async #send(name: string, entry: Entry, scheduled: number, manual: boolean): Promise<FireResult> {
    const limitMs = this.#limitMs;
    const result = await fireTimer(
      this.#server(),
      name,
      { params: entry.params, scheduledTime: scheduled, manual, limitMs },
      this.#app.options.logidHeader,
    );
    if (result.cut)
      this.#app.logger.line(
        'error',
        result.logid,
        name,
        `timer firing cut after ${limitMs} ms: the platform waits at most ${PLATFORM_FIRING_LIMIT_MS / 1000} s for a timer's answer, then loses its status and may stop the work; finish sooner, or split the work`,
        { limitMs, trigger: 'timer' },
      );
    return result;
  }
}

/** Declared in the console's protocol, which the page imports too. */
