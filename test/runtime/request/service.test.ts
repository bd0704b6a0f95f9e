/**
 * `service.waitUntil`: the response goes out at once, the work goes on after it, shutdown's
 * drain waits for that work, and a failure is logged under the request's logid.
 */
import { describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { shutdown } from '../../../runtime/serve/drain.js';
import { serve } from '../../../runtime/serve/start.js';
import type { FunctionSpec } from '../../../runtime/types.js';
import { sendHttp } from '../helpers/transport.js';

async function start(functions: FunctionSpec[]) {
  const sink = createMemorySink();
  const server = await serve(functions, {
    flags: { port: '0', host: '127.0.0.1' },
    env: {},
    logger: new Logger(sink),
    handleSignals: false,
    keepServing: false,
  });
  return { server, sink };
}

describe('service.waitUntil', () => {
  it('answers at once, counts the work in flight, and lets shutdown drain it', async () => {
    let finish: () => void = () => {};
    let finished = false;
    const { server } = await start([
      {
        name: 'notify',
        handler: (_params, service) => {
          service.waitUntil(
            new Promise<void>((resolve) => {
              finish = () => {
                finished = true;
                resolve();
              };
            }),
          );
          return { received: true };
        },
      },
    ]);
    const answer = await sendHttp(server.url, { path: '/notify' });
    expect(JSON.parse(answer.body.toString())).toEqual({ received: true });
    expect(server.app.inflight).toBe(1);
    const done = shutdown(server.app, server.server, 5000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(finished).toBe(false);
    finish();
    expect(await done).toBe(true);
    expect(finished).toBe(true);
    expect(server.app.inflight).toBe(0);
  });

  it('logs a rejection under the request logid and keeps serving', async () => {
    const { server, sink } = await start([
      {
        name: 'fail',
        handler: (_params, service) => {
          service.waitUntil(Promise.reject(new Error('the after-work broke')));
          return 'ok';
        },
      },
    ]);
    try {
      const answer = await sendHttp(server.url, { path: '/fail', headers: { 'x-platform-logid': 'logid-wait-1' } });
      expect(answer.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const record = sink.records.find(
        (r) => r.level === 'error' && JSON.stringify(r).includes('the after-work broke'),
      );
      expect(record).toBeDefined();
      expect(record?.logid).toBe(answer.headers['x-platform-logid']);
      expect(server.app.inflight).toBe(0);
      expect((await sendHttp(server.url, { path: '/fail' })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
