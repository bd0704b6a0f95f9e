import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { serve, type RunningServer } from '../../../runtime/serve/start.js';
import { resolveOptions } from '../../../runtime/options.js';

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(routes?: Record<string, string>) {
  const sink = createMemorySink();
  running = await serve([{ name: 'index', handler: () => ({ fn: true }) }], {
    flags: { port: '0', host: '127.0.0.1' },
    env: {},
    routes,
    logger: new Logger(sink),
    handleSignals: false,
    keepServing: false,
  });
  return { running, sink, url: running.url.replace('localhost', '127.0.0.1') };
}

describe('the health path', () => {
  it('is /_cloudfn/health unless CLOUDFN_HEALTH_PATH says otherwise, and off turns it off', () => {
    const healthPathFrom = (env: NodeJS.ProcessEnv) => resolveOptions({ env }).healthPath;
    expect(healthPathFrom({})).toBe('/_cloudfn/health');
    expect(healthPathFrom({ CLOUDFN_HEALTH_PATH: '/healthz' })).toBe('/healthz');
    expect(healthPathFrom({ CLOUDFN_HEALTH_PATH: 'off' })).toBeUndefined();
    expect(() => healthPathFrom({ CLOUDFN_HEALTH_PATH: 'healthz' })).toThrow(
      'option healthPath is invalid: must be a path starting with "/" (or off), got "healthz" (from CLOUDFN_HEALTH_PATH)',
    );
  });

  it('is also answered at GET /v1/ping (pingPath, CLOUDFN_PING_PATH; off turns it off)', async () => {
    const pingPathFrom = (env: NodeJS.ProcessEnv) => resolveOptions({ env }).pingPath;
    expect(pingPathFrom({})).toBe('/v1/ping');
    expect(pingPathFrom({ CLOUDFN_PING_PATH: '/ping' })).toBe('/ping');
    expect(pingPathFrom({ CLOUDFN_PING_PATH: 'off' })).toBeUndefined();
    const { url, sink } = await start({ '/{*path}': 'index' });
    const res = await fetch(`${url}/v1/ping`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', inflight: 0 });
    expect(sink.records.filter((r) => r.msg?.includes('/v1/ping'))).toEqual([]);
  });

  it('answers before routing, even when a route catches every path, and is not logged', async () => {
    const { url, sink } = await start({ '/{*path}': 'index' });
    const res = await fetch(`${url}/_cloudfn/health?probe=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok', inflight: 0 });
    const head = await fetch(`${url}/_cloudfn/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await (await fetch(`${url}/_cloudfn/healthy`)).json()).toEqual({ fn: true });
    expect(await (await fetch(`${url}/anything`)).json()).toEqual({ fn: true });
    expect(
      sink.records.filter((r) => String(r.path ?? '').includes('health') && r.path !== '/_cloudfn/healthy'),
    ).toEqual([]);
  });

  it('answers 503 while the server shuts down, so traffic moves elsewhere', async () => {
    const { url, running: server } = await start();
    server.app.beginShutdown();
    const res = await fetch(`${url}/_cloudfn/health`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'closing', inflight: 0 });
  });
});
