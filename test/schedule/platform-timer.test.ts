/**
 * Timers as the platform's timer trigger fires them ("触发器接口开发文档"): `{ cron, params }`
 * POSTs exactly params as the JSON body, nothing added, with x-tt-logid the firing's logid (and
 * the request's); a firing not answered within the limit (60 s on the platform, short here) is
 * cut with a line that says so, and the handler's signal aborts; the config is checked at load.
 */
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../runtime/app.js';
import { Logger } from '../../runtime/log/logger.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { validateConfig } from '../../runtime/serve/load.js';
import type { Handler } from '../../runtime/types.js';
import { PLATFORM_FIRING_LIMIT_MS } from '../../src/schedule/fire.js';
import { Scheduler } from '../../src/schedule/scheduler.js';

const PARAMS = { job: 'cleanup', days: [1, 2], nested: { deep: null } };

function setUp(handler: Handler, options: { firingLimitMs?: number; trustGatewayHeaders?: boolean } = {}) {
  const sink = createMemorySink();
  const app = new App({
    functions: [{ name: 'job', handler, config: { schedule: { cron: '0 0 3 * * *', params: PARAMS } } }],
    logger: new Logger(sink),
    options: { trustGatewayHeaders: options.trustGatewayHeaders ?? false },
  });
  const scheduler = new Scheduler(app, {
    ...(options.firingLimitMs === undefined ? {} : { firingLimitMs: options.firingLimitMs }),
  });
  scheduler.sync();
  return { app, sink, scheduler };
}

describe('a timer in the platform shape', () => {
  it('waits 60 s by default, as the platform', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { scheduler } = setUp(
        (_params, service) => new Promise((resolve) => service.signal.addEventListener('abort', () => resolve('late'))),
      );
      let result: Awaited<ReturnType<typeof scheduler.fire>> | undefined;
      const firing = scheduler.fire('job').then((r) => {
        result = r;
      });
      await vi.advanceTimersByTimeAsync(PLATFORM_FIRING_LIMIT_MS - 1_000);
      expect(result).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1_000);
      await firing;
      expect(result).toMatchObject({ cut: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([false, true])(
    'POSTs exactly its params, with x-tt-logid as the logid (gateway trusted: %s)',
    async (trusted) => {
      let seen:
        | { raw: string; params: unknown; logid: string; header: unknown; method: string; type: unknown }
        | undefined;
      const { scheduler, sink } = setUp(
        (params, service) => {
          seen = {
            raw: service.rawBody?.toString('utf8') ?? '',
            params,
            logid: service.logid,
            header: service.headers['x-tt-logid'],
            method: service.httpMethod,
            type: service.headers['content-type'],
          };
          return { ok: true };
        },
        { trustGatewayHeaders: trusted },
      );
      expect(scheduler.list()[0]).toMatchObject({ name: 'job', schedule: '0 0 3 * * *', params: PARAMS });
      const result = await scheduler.fire('job');
      expect(result).toMatchObject({ status: 200, cut: false, body: '{"ok":true}' });
      expect(seen!.raw).toBe(JSON.stringify(PARAMS));
      expect(seen!.params).toEqual(PARAMS);
      expect(seen!.method).toBe('POST');
      expect(seen!.type).toBe('application/json');
      expect(seen!.header).toBe(result.logid);
      expect(seen!.logid).toBe(result.logid);
      expect(sink.records.find((r) => r['status'] === 200)).toMatchObject({ logid: result.logid, trigger: 'timer' });
    },
  );

  it('is cut at its limit with a line that says so, and the handler is told', async () => {
    let aborted = false;
    const { scheduler, sink } = setUp(
      (_params, service) =>
        new Promise((resolve) => {
          service.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('too late');
          });
        }),
      { firingLimitMs: 150 },
    );
    const started = performance.now();
    const result = await scheduler.fire('job');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(result).toMatchObject({ status: 0, cut: true, body: '' });
    const line = sink.records.find((r) => String(r['msg']).includes('cut after'));
    expect(line).toMatchObject({ level: 'error', logid: result.logid, function: 'job', limitMs: 150 });
    expect(String(line!['msg'])).toMatch(/timer firing cut after 150 ms: the platform waits at most 60 s/);
    await expect.poll(() => aborted, { timeout: 5000 }).toBe(true);
  });

  it('sends {} for the string form and for { cron } without params', async () => {
    const bodies: string[] = [];
    const handler: Handler = (_p, service) => {
      bodies.push(service.rawBody?.toString('utf8') ?? '');
      return 1;
    };
    const app = new App({
      functions: [
        { name: 'a', handler, config: { schedule: '0 0 3 * * *' } },
        { name: 'b', handler, config: { schedule: { cron: '0 0 3 * * *' } } },
      ],
      logger: new Logger(createMemorySink()),
    });
    const scheduler = new Scheduler(app);
    scheduler.sync();
    await scheduler.fire('a');
    await scheduler.fire('b');
    expect(bodies).toEqual(['{}', '{}']);
  });

  it('is checked at load, naming the bad part', () => {
    expect(validateConfig({ schedule: { cron: '0 * * * *', params: { a: 1 } } }, 'functions/job.ts')).toEqual({
      schedule: { cron: '0 * * * *', params: { a: 1 } },
    });
    const cases: [unknown, string][] = [
      [{ params: {} }, 'config.schedule .cron must be a cron expression, got undefined'],
      [{ cron: '0 * * * *', body: {} }, 'config.schedule has no key body (its keys are cron and params)'],
      [{ cron: '0 * * * *', params: 10n }, 'config.schedule .params cannot be sent as JSON'],
      [['0 * * * *'], 'config.schedule must be a string or an object, got ["0 * * * *"]'],
      ['', 'config.schedule is an empty string'],
    ];
    for (const [schedule, message] of cases)
      expect(() => validateConfig({ schedule }, 'functions/job.ts')).toThrow(`functions/job.ts: ${message}`);
  });
});
