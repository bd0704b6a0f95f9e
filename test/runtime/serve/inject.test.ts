/**
 * The runtime's one in-memory request (runtime/serve/inject.ts): a request reaches the server's
 * hooks and pipeline without a socket, a marked connection carries its trigger, a limit cuts a
 * slow answer and aborts the handler's signal, pooled connections are reused, and a running
 * server's own `inject` loads it on first use.
 */
import { createServer } from 'node:http';
import { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../../runtime/app.js';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { markSocketTrigger } from '../../../runtime/request/socket-trigger.js';
import { createHttpServer } from '../../../runtime/serve/http-server.js';
import { inject, injectAgent } from '../../../runtime/serve/inject.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec, Service } from '../../../runtime/types.js';

const echo: FunctionSpec = {
  name: 'echo',
  handler: (params: unknown, service: Service) => ({ params, trigger: service.trigger }),
};

function appServer(functions: FunctionSpec[], options: Partial<App['options']> = {}) {
  const sink = createMemorySink();
  const app = new App({
    functions,
    logger: new Logger(sink),
    options: { ...new App({ functions: [] }).options, ...options },
  });
  return { app, server: createHttpServer(app), sink };
}

describe('inject', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('runs the real pipeline without a socket: body parsed, request line logged', async () => {
    const { server, sink } = appServer([echo]);
    let tcp = 0;
    server.on('connection', (socket) => {
      if (socket instanceof Socket) tcp++;
    });
    const res = await inject(server, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ params: { a: 1 }, trigger: 'online' });
    expect(res.cut).toBe(false);
    expect(tcp).toBe(0);
    expect(sink.records.at(-1)?.msg).toMatch(/^POST \/echo 200 /);
  });

  it('keeps repeated headers apart in rawHeaders', async () => {
    const cookies: FunctionSpec = {
      name: 'cookies',
      handler: (_params: unknown, service: Service) => {
        service.setCookie('a', '1');
        service.setCookie('b', '2');
        return 'ok';
      },
    };
    const res = await inject(appServer([cookies]).server, { path: '/cookies' });
    const names = res.rawHeaders.filter((_value, i) => i % 2 === 0).map((name) => name.toLowerCase());
    expect(names.filter((name) => name === 'set-cookie')).toHaveLength(2);
  });

  it('marks the server end before the server sees it (a timer firing)', async () => {
    const res = await inject(appServer([echo]).server, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      mark: (end) => markSocketTrigger(end, 'timer'),
    });
    expect(JSON.parse(res.body.toString('utf8')).trigger).toBe('timer');
  });

  it('cuts an answer slower than its limit, and the handler sees its signal abort', async () => {
    let aborted: () => void = () => undefined;
    const sawAbort = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const slow: FunctionSpec = {
      name: 'slow',
      handler: (_params: unknown, service: Service) =>
        new Promise((resolve) => {
          service.signal.addEventListener('abort', () => {
            aborted();
            resolve('late');
          });
        }),
    };
    const started = performance.now();
    const res = await inject(appServer([slow]).server, { path: '/slow', limitMs: 50 });
    expect(res).toMatchObject({ status: 0, cut: true });
    expect(res.body.length).toBe(0);
    await sawAbort;
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('shares pooled connections through an agent', async () => {
    const { server } = appServer([echo]);
    let connections = 0;
    server.on('connection', () => connections++);
    const agent = injectAgent(server, 2);
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, () => inject(server, { path: '/echo', agent })));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(connections).toBeLessThanOrEqual(2);
    } finally {
      agent.destroy();
    }
  });

  it('is a method of a running server, through its before hooks', async () => {
    running = await serve([echo], {
      flags: { port: '0', host: '127.0.0.1' },
      env: {},
      logger: new Logger(createMemorySink()),
      handleSignals: false,
      keepServing: false,
    });
    expect((await running.inject({ path: '/_cloudfn/health' })).status).toBe(200);
    const res = await running.inject({ path: '/echo?x=1' });
    expect(JSON.parse(res.body.toString('utf8')).params).toEqual({ x: '1' });
  });

  it('rejects when the server is not an http server of the app it claims (no handler)', async () => {
    // A bare node server with no request listener never answers: the limit still ends the call.
    const res = await inject(createServer(), { path: '/', limitMs: 20 });
    expect(res.cut).toBe(true);
  });
});
