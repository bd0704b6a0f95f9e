/**
 * The gateway's logid: behind a trusted gateway (`trustGatewayHeaders`, as under `cloudfn dev`)
 * an incoming `x-tt-logid` is the request's logid, on its lines and in its response header;
 * untrusted, it is never adopted; malformed, a new one is generated. Both ways in process
 * (`invoke`) and over a real socket (`cloudfn dev`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickGatewayLogid } from '../../../runtime/log/logid.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import type { Handler } from '../../../runtime/types.js';
import { type DevServer, startDevServer } from '../../../src/dev/index.js';
import { invoke } from '../../../src/testing/index.js';

const GATEWAY = '20261126170301A1B2C3D4E5F6A7B8C9D0';
const handler: Handler = (_params, service) => {
  service.log('working');
  return { logid: service.logid };
};

describe('x-tt-logid', () => {
  it('is the logid behind a trusted gateway: on the lines, in the answer header', async () => {
    const res = await invoke(
      handler,
      { headers: { 'x-tt-logid': GATEWAY } },
      { runtime: { trustGatewayHeaders: true } },
    );
    expect(res.logid).toBe(GATEWAY);
    expect(res.json).toEqual({ logid: GATEWAY });
    expect(res.logs.map((r) => r['logid'])).toEqual([GATEWAY, GATEWAY]);
  });

  it('is never adopted when the gateway is not trusted', async () => {
    const res = await invoke(
      handler,
      { headers: { 'x-tt-logid': GATEWAY } },
      { runtime: { trustGatewayHeaders: false } },
    );
    expect(res.logid).not.toBe(GATEWAY);
    expect(res.logid).toMatch(/^[0-9a-f]{24}$/);
    expect(res.logs.every((r) => r['logid'] === res.logid)).toBe(true);
  });

  it('wins over the app header when trusted; the app header still counts without it', async () => {
    const both = await invoke(
      handler,
      { headers: { 'x-tt-logid': GATEWAY, 'x-platform-logid': 'other-id' } },
      { runtime: { trustGatewayHeaders: true } },
    );
    expect(both.logid).toBe(GATEWAY);
    const own = await invoke(
      handler,
      { headers: { 'x-platform-logid': 'other-id' } },
      { runtime: { trustGatewayHeaders: true } },
    );
    expect(own.logid).toBe('other-id');
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'abc def'],
    ['a quote', 'abc"def'],
    ['non-ASCII', 'logid-日志'],
    ['empty', ''],
  ])('falls back to a generated one when it has %s', (_what, bad) => {
    const picked = pickGatewayLogid({ 'x-tt-logid': bad }, 'x-platform-logid');
    expect(picked).not.toBe(bad);
    expect(picked).toMatch(/^[0-9a-f]{24}$/);
    expect(pickGatewayLogid({ 'x-tt-logid': ['a', 'b'] }, 'x-platform-logid')).toMatch(/^[0-9a-f]{24}$/);
    expect(pickGatewayLogid({ 'x-tt-logid': 'a'.repeat(128) }, 'x-platform-logid')).toBe('a'.repeat(128));
  });
});

describe('x-tt-logid under cloudfn dev (trusted) over a socket', () => {
  let root: string;
  let dev: DevServer;
  const sink = createMemorySink();
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cloudfn-logid-'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(
      join(root, 'functions', 'who.mjs'),
      `export default (params, service) => { service.log('in'); return { logid: service.logid }; };\n`,
    );
    dev = await startDevServer({ root, port: 0, sink });
  }, 30_000);
  afterAll(async () => {
    await dev?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers and logs under the gateway logid', async () => {
    const response = await fetch(`${dev.url}/who`, { headers: { 'x-tt-logid': GATEWAY } });
    expect(await response.json()).toEqual({ logid: GATEWAY });
    expect(response.headers.get('x-platform-logid')).toBe(GATEWAY);
    const lines = sink.records.filter((r) => r['function'] === 'who');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every((r) => r['logid'] === GATEWAY)).toBe(true);
    const bad = await fetch(`${dev.url}/who`, { headers: { 'x-tt-logid': 'x'.repeat(200) } });
    expect(bad.headers.get('x-platform-logid')).toMatch(/^[0-9a-f]{24}$/);
  });
});
