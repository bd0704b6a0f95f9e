/**
 * Firing a scheduled function on demand under `cloudfn dev`: the console's endpoint
 * (`POST /_cloudfn/trigger/<function>`), the real `cloudfn trigger` CLI against it, the
 * schedules in the console's API, and the metrics dev serves always.
 */
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { startDevServer, type DevServer } from '../../src/dev/index.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const run = promisify(execFile);

/** A port nothing listens on: one the system gave out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
let root: string;
let dev: DevServer;
const sink = createMemorySink();

beforeAll(async () => {
  ensureDist();
  root = mkdtempSync(join(tmpdir(), 'cloudfn-trigger-'));
  mkdirSync(join(root, 'functions'));
  writeFileSync(
    join(root, 'functions', 'tick.mjs'),
    `export const config = { schedule: { cron: '0 0 3 * * *', params: { job: 'nightly' } } };
export default (params, service) => ({ got: params, trigger: service.trigger, manual: service.headers['x-cloudfn-manual'] });\n`,
  );
  writeFileSync(join(root, 'functions', 'plain.mjs'), `export default () => 'plain';\n`);
  dev = await startDevServer({ root, port: 0, sink });
}, 30_000);

afterAll(async () => {
  await dev?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('on-demand firing under cloudfn dev', () => {
  it('answers POST /_cloudfn/trigger/<function> with the firing', async () => {
    const response = await fetch(`${dev.url}/_cloudfn/trigger/tick`, { method: 'POST' });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { function: string; status: number; logid: string; body: string };
    expect(answer).toMatchObject({ function: 'tick', status: 200, cut: false });
    expect(JSON.parse(answer.body)).toEqual({ trigger: 'timer', got: { job: 'nightly' }, manual: 'true' });
    const line = sink.records.find((r) => r['logid'] === answer.logid && r['status'] === 200);
    expect(line).toMatchObject({ function: 'tick', trigger: 'timer' });

    const unknown = await fetch(`${dev.url}/_cloudfn/trigger/plain`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'CLOUDFN_TRIGGER_NOT_FOUND',
      message: 'no function "plain" has a config.schedule; the scheduled functions are: tick',
    });
    const get = await fetch(`${dev.url}/_cloudfn/trigger/tick`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('lists the schedules in the console API, and serves the metrics', async () => {
    const api = (await (await fetch(`${dev.url}/_cloudfn/api/functions`)).json()) as { schedules: unknown };
    expect(api.schedules).toEqual([
      { name: 'tick', schedule: '0 0 3 * * *', params: { job: 'nightly' }, next: expect.any(String) },
    ]);
    const metrics = await (await fetch(`${dev.url}/_cloudfn/metrics`)).text();
    expect(metrics).toMatch(/^cloudfn_requests_total\{function="tick",status="200"\} [1-9]/m);
  });

  it('is what cloudfn trigger calls', async () => {
    const cli = join(REPO, 'dist/src/cli/index.js');
    const ok = await run(process.execPath, [cli, 'trigger', 'tick', '--url', dev.url]);
    expect(JSON.parse(ok.stdout)).toMatchObject({ trigger: 'timer', got: { job: 'nightly' }, manual: 'true' });
    expect(ok.stderr).toMatch(/^tick answered 200 \(logid \S+\)\n$/);

    const missing = await run(process.execPath, [cli, 'trigger', 'plain', '--url', dev.url]).catch((e) => e);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'cloudfn: no function "plain" has a config.schedule; the scheduled functions are: tick\n',
    );
    const port = await closedPort();
    const nobody = await run(process.execPath, [cli, 'trigger', 'tick', '--url', `http://127.0.0.1:${port}`]).catch(
      (e) => e,
    );
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain(`cloudfn: nothing answered at http://127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
