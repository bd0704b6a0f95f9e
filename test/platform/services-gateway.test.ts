/**
 * The dev gateway's hook (src/platform/services/gateway.ts) on a real socket, without a
 * session: what passes (no header, this service, limits off by default), the envelope of each
 * refusal (13005, 14021, 14010, 14030 with `debug`) read back by `createCloud`, a sibling that
 * does not answer, and `gatewayLimits` refused in one line naming the bad value.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createCloud } from '../../src/client/create-cloud.js';
import { gatewayHook } from '../../src/platform/services/gateway.js';
import { type GatewayLimits, readGatewayLimits } from '../../src/platform/services/setting.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server whose requests pass the hook of service `rank` first; what passes is answered `passed`. */
async function serve(
  limits: GatewayLimits,
  session?: Record<string, string>,
): Promise<{ url: string; warned: string[] }> {
  const warned: string[] = [];
  const hook = gatewayHook({
    self: 'rank',
    session,
    limits,
    warn: (logid, message) => warned.push(`${logid} ${message}`),
  });
  const server = createServer((req, res) => {
    if (hook(req, res)) return;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ passed: true, service: req.headers['x-cloudfn-service'] ?? null }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, warned };
}

const call = (url: string, serviceID: string, body?: unknown) =>
  createCloud({ envID: 'dev', serviceID, baseUrl: url })
    .callContainer({ path: '/top', init: { method: 'POST', body: body ?? {} } })
    .then(
      (response) => ({ ok: response.data }),
      (error: { code: number; errNo: number; errMsg: string }) => ({ failed: error }),
    );

describe('the dev gateway', () => {
  it('passes a request without the header, and one for itself with the header removed; no limit by default', async () => {
    const { url } = await serve({ debug: false });
    expect(await (await fetch(`${url}/top`)).json()).toEqual({ passed: true, service: null });
    const results = await Promise.all(
      Array.from({ length: 40 }, () => call(url, 'rank', { big: 'x'.repeat(200_000) })),
    );
    expect(results.every((result) => 'ok' in result)).toBe(true);
    expect(results[0]).toEqual({ ok: { passed: true, service: null } });
  });

  it('answers 14030 over the QPS limit when debug is set, with the envelope in the body and the X-Status headers', async () => {
    const { url, warned } = await serve({ qps: 2, debug: true });
    const results = await Promise.all(Array.from({ length: 10 }, () => call(url, 'rank')));
    const refused = results.flatMap((result) => ('failed' in result ? [result.failed] : []));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const failure of refused) {
      expect(failure).toMatchObject({ errNo: 21102, code: 14030 });
      expect(failure.errMsg).toMatch(/^callContainer:debug request qps limited, code=14030, logid=[0-9a-f]{24}$/);
    }
    expect(warned[0]).toMatch(
      /^[0-9a-f]{24} gateway 14030: debug request qps limited: over gatewayLimits\.qps 2 of service rank$/,
    );
    // The raw answer, while the second is still spent.
    const res = await fetch(`${url}/top`, { headers: { 'x-cloudfn-service': 'rank' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-status-code')).toBe('14030');
    expect(res.headers.get('x-status-message')).toBe('debug request qps limited');
    expect(Buffer.from(res.headers.get('x-status-message-base64')!, 'base64').toString()).toBe(
      'debug request qps limited',
    );
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      status_code: 14030,
      status_message: 'debug request qps limited',
      logid: res.headers.get('x-tt-logid'),
    });
  });

  it('answers 14010 without debug, and 14021 by the Content-Length before reading the body', async () => {
    const { url } = await serve({ qps: 1, maxBodySize: 10, debug: false });
    const results = await Promise.all(Array.from({ length: 6 }, () => call(url, 'rank', { a: 1 })));
    expect(results).toContainEqual({ ok: { passed: true, service: null } });
    expect(results.find((result) => 'failed' in result)).toMatchObject({ failed: { code: 14010, errNo: 21102 } });
    const big = await call(url, 'rank', { long: 'x'.repeat(20) });
    expect(big).toMatchObject({ failed: { code: 14021 } });
    expect((big as { failed: { errMsg: string } }).failed.errMsg).toMatch(
      /^callContainer:request body limited, code=14021, /,
    );
  });

  it('answers 13005 for a service it does not know, alone or in a session, and for a sibling that does not answer', async () => {
    const alone = await serve({ debug: false });
    const unknown = await call(alone.url, 'profile');
    expect(unknown).toMatchObject({ failed: { code: 13005, errNo: 21102 } });
    expect((unknown as { failed: { errMsg: string } }).failed.errMsg).toContain(
      '"profile" is not a service of this session (rank)',
    );
    const gone = await serve({ debug: false }, { rank: 'http://127.0.0.1:1', profile: 'http://127.0.0.1:1' });
    const down = await call(gone.url, 'profile');
    expect(down).toMatchObject({ failed: { code: 13005, errNo: 21102 } });
    expect((down as { failed: { errMsg: string } }).failed.errMsg).toMatch(
      /^callContainer:service profile is not answering at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\); is its cloudfn dev running\?, code=13005, /,
    );
  });
});

describe('gatewayLimits', () => {
  it('is off unless set, and reads maxBodySize, qps and debug', () => {
    expect(readGatewayLimits('/src/rank', {})).toEqual({ debug: false });
    expect(readGatewayLimits('/src/rank', { gatewayLimits: { maxBodySize: 1024, qps: 5, debug: true } })).toEqual({
      maxBodySize: 1024,
      qps: 5,
      debug: true,
    });
  });

  it.each([
    [{ qps: 0 }, 'rank/cloudfn.config.json gatewayLimits.qps 0: qps is a positive whole number'],
    [
      { maxBodySize: '1mb' },
      'rank/cloudfn.config.json gatewayLimits.maxBodySize "1mb": maxBodySize is a positive whole number',
    ],
    [{ burst: 3 }, 'rank/cloudfn.config.json gatewayLimits.burst 3: the keys are maxBodySize, qps and debug'],
    [[1], 'rank/cloudfn.config.json gatewayLimits [1]: write e.g.'],
  ])('refuses %j in one line naming it', (given, message) => {
    expect(() => readGatewayLimits('/src/rank', { gatewayLimits: given })).toThrow(message);
  });
});
