/**
 * Timer triggers: the cron forms against a table of cases, a bad schedule named at load, a
 * scheduled function fired under a fake clock through the real pipeline (params, trigger,
 * request line), the lock that lets one server of a fleet fire, and shutdown stopping it all.
 */
import { describe, expect, it } from 'vitest';
import { App } from '../../runtime/app.js';
import { Logger } from '../../runtime/log/logger.js';
import type { LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { validateConfig } from '../../runtime/serve/load.js';
import type { Handler, Service } from '../../runtime/types.js';
import { parseSchedule } from '../../src/schedule/cron.js';
import type { FireLock } from '../../src/schedule/lock.js';
import { Scheduler, type SchedulerClock } from '../../src/schedule/scheduler.js';

const T0 = Date.UTC(2030, 0, 1, 0, 0, 0); // a Tuesday

describe('config.schedule', () => {
  const cases: [string, number[]][] = [
    // 5 fields: minute hour day month weekday
    ['*/15 * * * *', [Date.UTC(2030, 0, 1, 0, 15), Date.UTC(2030, 0, 1, 0, 30)]],
    ['0 12 * * MON-FRI', [Date.UTC(2030, 0, 1, 12), Date.UTC(2030, 0, 2, 12)]],
    ['0 0 1 */3 *', [Date.UTC(2030, 3, 1), Date.UTC(2030, 6, 1)]],
    // 6 fields: seconds first
    ['*/10 * * * * *', [T0 + 10_000, T0 + 20_000]],
    ['30 0 0 * * ?', [T0 + 30_000, Date.UTC(2030, 0, 2, 0, 0, 30)]],
    // 7 fields: a year last (WeChat cloud development's form)
    ['0 0 8 1 1 * 2031', [Date.UTC(2031, 0, 1, 8)]],
    ['@hourly', [Date.UTC(2030, 0, 1, 1), Date.UTC(2030, 0, 1, 2)]],
  ];
  for (const [expression, expected] of cases) {
    it(`reads ${JSON.stringify(expression)}`, () => {
      const schedule = parseSchedule(expression, 'functions/tick.ts', T0);
      const got: number[] = [];
      let at = T0;
      for (let i = 0; i < expected.length; i++) got.push((at = schedule.next(at)!));
      expect(got.map((t) => new Date(t).toISOString())).toEqual(expected.map((t) => new Date(t).toISOString()));
    });
  }

  const bad: [unknown, string][] = [
    ['every hour', 'is not a cron expression (invalid configuration format'],
    ['61 * * * *', 'is not a cron expression (Invalid value for minute: 61)'],
    ['* * * * * * * *', 'is not a cron expression'],
    ['0 0 30 2 *', 'never fires (no such date is left)'],
    ['0 0 0 1 1 * 2020', 'never fires'],
  ];
  for (const [value, detail] of bad) {
    it(`refuses ${JSON.stringify(value)}, naming the function and the value`, () => {
      expect(() => parseSchedule(value, 'functions/tick.ts (function tick)', T0)).toThrow(
        `functions/tick.ts (function tick): config.schedule ${JSON.stringify(value)} ${detail}`,
      );
    });
  }

  it('is a string in a function config, checked at load', () => {
    expect(validateConfig({ schedule: '0 * * * *', timeout: 10 }, 'functions/tick.ts')).toEqual({
      schedule: '0 * * * *',
      timeout: 10,
    });
    expect(() => validateConfig({ schedule: 5 }, 'functions/tick.ts')).toThrow(
      'functions/tick.ts: config.schedule must be a string or an object, got 5; write a cron expression such as "0 */5 * * * *", or { cron: "0 */5 * * * *", params: { ... } }',
    );
  });
});

/** A clock that moves only when told, running the timers that fall due. */
class FakeClock implements SchedulerClock {
  time = T0;
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 1;
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  get pending(): number {
    return this.#timers.size;
  }
  /** Moves to `to`, running each timer due on the way at its own time. */
  advance(to: number): void {
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = to;
  }
}

interface Call {
  params: unknown;
  trigger: string;
  logid: string;
  headers: Record<string, string | string[] | undefined>;
}

function setUp(options: { lock?: FireLock; schedule?: string } = {}) {
  const calls: Call[] = [];
  const handler: Handler = (params, service: Service) => {
    calls.push({ params, trigger: service.trigger, logid: service.logid, headers: { ...service.headers } });
    return { done: true };
  };
  const sink = createMemorySink();
  const app = new App({
    functions: [
      { name: 'tick', handler, config: { schedule: options.schedule ?? '*/10 * * * * *' }, file: 'functions/tick.ts' },
      { name: 'plain', handler },
    ],
    logger: new Logger(sink),
  });
  const lines: LogRecord[] = sink.records;
  const finished: (() => void)[] = [];
  app.observers.add(() => finished.shift()?.());
  const nextFinish = (): Promise<void> => new Promise((resolve) => finished.push(resolve));
  const clock = new FakeClock();
  const scheduler = new Scheduler(app, { clock, ...(options.lock ? { lock: options.lock } : {}) });
  scheduler.sync();
  return { app, calls, lines, clock, scheduler, nextFinish };
}

describe('the scheduler', () => {
  it('fires on the schedule under a fake clock, through the pipeline, with trigger timer', async () => {
    const { calls, lines, clock, scheduler, nextFinish } = setUp();
    expect(scheduler.list()).toEqual([
      { name: 'tick', schedule: '*/10 * * * * *', params: {}, next: new Date(T0 + 10_000).toISOString() },
    ]);
    clock.advance(T0 + 9_999);
    expect(calls).toEqual([]);

    let done = nextFinish();
    clock.advance(T0 + 10_000);
    await done;
    expect(calls).toHaveLength(1);
    // The platform's shape: the body is the params (none: {}), the logid is x-tt-logid.
    expect(calls[0]!.params).toEqual({});
    expect(calls[0]!.trigger).toBe('timer');
    expect(calls[0]!.headers['x-tt-logid']).toBe(calls[0]!.logid);
    expect(calls[0]!.headers['x-cloudfn-scheduled-time']).toBe(new Date(T0 + 10_000).toISOString());
    expect(calls[0]!.headers['x-cloudfn-manual']).toBe('false');
    const line = lines.find((r) => r['logid'] === calls[0]!.logid && r['status'] !== undefined)!;
    expect(line).toMatchObject({ function: 'tick', method: 'POST', path: '/tick', status: 200, trigger: 'timer' });

    // Two more periods: two more firings, each with its own scheduled time.
    done = Promise.all([nextFinish(), nextFinish()]).then(() => undefined);
    clock.advance(T0 + 30_000);
    await done;
    expect(calls.map((c) => c.headers['x-cloudfn-scheduled-time'])).toEqual(
      [10_000, 20_000, 30_000].map((ms) => new Date(T0 + ms).toISOString()),
    );
    expect(scheduler.list()[0]!.next).toBe(new Date(T0 + 40_000).toISOString());
  });

  it('fires on demand with manual: true, and refuses a function without a schedule', async () => {
    const { calls, scheduler } = setUp();
    const result = await scheduler.fire('tick');
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ done: true });
    expect(result.logid).toBe(calls[0]!.logid);
    expect(calls[0]!.params).toEqual({});
    expect(calls[0]!.headers['x-cloudfn-manual']).toBe('true');
    expect(calls[0]!.headers['x-cloudfn-scheduled-time']).toBe(new Date(T0).toISOString());
    await expect(scheduler.fire('plain')).rejects.toThrow(
      'no function "plain" has a config.schedule; the scheduled functions are: tick',
    );
  });

  it('asks the lock for each firing and skips the ones another server took', async () => {
    const asked: string[] = [];
    let grant = false;
    const { calls, clock, nextFinish } = setUp({
      lock: async (key, ttlMs) => {
        asked.push(`${key} ${ttlMs}`);
        return grant;
      },
    });
    clock.advance(T0 + 10_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toEqual([]);
    grant = true;
    const done = nextFinish();
    clock.advance(T0 + 20_000);
    await done;
    expect(calls).toHaveLength(1);
    expect(asked).toEqual([`timer:tick:${T0 + 10_000} 60000`, `timer:tick:${T0 + 20_000} 60000`]);
  });

  it('follows reloads and stops at shutdown', () => {
    const { app, clock, scheduler } = setUp();
    expect(clock.pending).toBe(1);
    app.setFunction({ name: 'tick', handler: () => 1, config: { schedule: '0 0 * * *' } });
    scheduler.sync();
    expect(scheduler.list()[0]).toMatchObject({ schedule: '0 0 * * *' });
    expect(clock.pending).toBe(1);
    app.deleteFunction('tick');
    scheduler.sync();
    expect(scheduler.list()).toEqual([]);
    expect(clock.pending).toBe(0);
    app.setFunction({ name: 'tick', handler: () => 1, config: { schedule: '* * * * *' } });
    scheduler.sync();
    expect(clock.pending).toBe(1);
    app.beginShutdown();
    expect(clock.pending).toBe(0);
    scheduler.sync();
    expect(clock.pending).toBe(0);
  });

  it('stops start-up on a bad schedule, or (dev) logs it and serves on', () => {
    const app = new App({
      functions: [{ name: 'tick', handler: () => 1, config: { schedule: 'hourly' }, file: 'functions/tick.ts' }],
      logger: new Logger(createMemorySink()),
    });
    expect(() => new Scheduler(app, { clock: new FakeClock() }).sync()).toThrow(
      'functions/tick.ts (function tick): config.schedule "hourly" is not a cron expression',
    );
    const sink = createMemorySink();
    const devApp = new App({
      functions: [{ name: 'tick', handler: () => 1, config: { schedule: 'hourly' }, file: 'functions/tick.ts' }],
      logger: new Logger(sink),
    });
    const scheduler = new Scheduler(devApp, { clock: new FakeClock(), onBadSchedule: 'log' });
    scheduler.sync();
    expect(scheduler.list()).toEqual([]);
    expect(sink.records[0]).toMatchObject({ level: 'error', function: 'tick', code: 'CLOUDFN_BAD_SCHEDULE' });
  });
});
