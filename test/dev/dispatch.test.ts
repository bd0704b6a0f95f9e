/**
 * The dev server's extensions behind one dispatcher (issue 51): at most four hooks before
 * routing (health, ping, metrics, the dispatcher), however many services there are, and the
 * local services answer the same with their list reversed: the push API by its host and its
 * route, the live rooms by theirs, the trigger endpoint, the database panel, the services panel,
 * and the dev user's headers on a request to a function.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../runtime/log/record.js';
import { beforeHookNames } from '../../runtime/serve/http-server.js';
import { type DevServer, startDevServer } from '../../src/dev/index.js';
import { LOCAL_SERVICES } from '../../src/local-services.js';
import { FIXTURE } from './project.js';

const quiet = { write: (_record: LogRecord) => undefined };

/** A request with its own Host header (fetch cannot set one), as the intranet hook sends it. */
function byHost(url: string, host: string, method = 'GET', body = ''): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.each([
  ['in list order', LOCAL_SERVICES],
  ['with the list reversed', [...LOCAL_SERVICES].reverse()],
])('the dev server %s', (_label, services) => {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-dispatch-'));
  cpSync(FIXTURE, root, { recursive: true });
  writeFileSync(
    join(root, 'functions', 'who.ts'),
    "export default (_params: unknown, service: { headers: Record<string, unknown> }) => ({ openid: service.headers['x-tt-openid'] ?? null });\n",
  );
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer({ root, port: 0, sink: quiet, services, typecheck: false });
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs at most 4 hooks before routing: health, ping, metrics and the dispatcher', () => {
    const names = beforeHookNames(dev.app);
    expect(names.length).toBeLessThanOrEqual(4);
    expect(names.at(-1)).toBe('dispatch');
    expect(names.filter((name) => name === 'dispatch')).toHaveLength(1);
  });

  it('answers the push API by its host and by its route alike', async () => {
    const byRoute = await fetch(`${dev.url}/_cloudfn/ws-push/ws/query_info`, { method: 'POST', body: '{}' });
    const host = await byHost(`${dev.url}/ws/query_info`, 'ws-push.dyc.ivolces.com', 'POST', '{}');
    const routeBody = await byRoute.json();
    expect(host.json).toEqual(routeBody);
    expect(host.status).toBe(byRoute.status);
    expect(routeBody).toHaveProperty('err_no');
  });

  it('answers the live rooms by their host and by their route alike', async () => {
    const byRoute = await fetch(`${dev.url}/_cloudfn/live/api/live_data/task/get?roomid=1&appid=a&msg_type=live_like`);
    const host = await byHost(
      `${dev.url}/api/live_data/task/get?roomid=1&appid=a&msg_type=live_like`,
      'webcast.bytedance.com',
    );
    expect(host.status).toBe(byRoute.status);
    expect(host.json.data).toEqual((await byRoute.json()).data);
    expect((await fetch(`${dev.url}/_cloudfn/live/rooms`)).status).toBe(200);
  });

  it('answers the trigger endpoint, the database panel and the services panel', async () => {
    expect((await fetch(`${dev.url}/_cloudfn/trigger/hello`)).status).toBe(405);
    expect((await fetch(`${dev.url}/_cloudfn/api/database`)).status).toBe(200);
    const services = await (await fetch(`${dev.url}/_cloudfn/api/services`)).json();
    expect(services.self).toBeTypeOf('string');
    expect((await fetch(`${dev.url}/_cloudfn/`)).status).toBe(200);
  });

  it("gives a request to a function the dev user's headers", async () => {
    const res = await fetch(`${dev.url}/who`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ openid: 'dev-openid' });
  });
});
