/**
 * The live room on the WebSocket gateway's calls: the platform's gateway writes the room it
 * decodes from a game client's token (X-Room-ID, X-Anchor-OpenID, X-Avatar-Url, X-Nick-Name)
 * on the client's WebSocket calls as on its HTTP calls. Under `cloudfn dev` the dev user's room
 * is sent on connect, uplink and disconnect; a client's own room headers on the upgrade win;
 * a value that is not printable ASCII is refused, naming the header.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { type DevServer, startDevServer } from '../../src/dev/index.js';

let root: string;
let dev: DevServer;
const sink = createMemorySink();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cloudfn-ws-room-'));
  writeFileSync(
    join(root, 'websocket_callback.mjs'),
    `export default (params, service) => {
  const h = service.headers;
  service.log('room-seen ' + JSON.stringify([h['x-tt-event-type'], h['x-tt-openid'], h['x-room-id'] ?? null, h['x-anchor-openid'] ?? null, h['x-nick-name'] ?? null]));
  return 'success';
};\n`,
  );
  const devUser = { openid: 'ann', roomid: '7001', anchorOpenid: 'anchor-ann', nickname: '主播安' };
  writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ functionsDir: '.', devUser }));
  dev = await startDevServer({ root, port: 0, sink });
}, 30_000);
afterAll(async () => {
  await dev?.close();
  rmSync(root, { recursive: true, force: true });
});

function seen(): unknown[][] {
  return sink.records
    .map((r) => JSON.stringify(r).match(/room-seen (\[.*?\])/)?.[1])
    .filter((m): m is string => m !== undefined)
    .map((m) => JSON.parse(JSON.parse(`"${m}"`)) as unknown[]);
}

/** Connects, sends one message, closes; resolves once the disconnect call was seen. */
async function session(headers: Record<string, string>): Promise<void> {
  const before = seen().length;
  const ws = new WebSocket(`${dev.url.replace(/^http/, 'ws')}/__dycloud__/ws/connect/`, {
    headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', ...headers },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('unexpected-response', (_q, res) => reject(new Error(`refused ${res.statusCode}`)));
  });
  ws.send('hi');
  await expect.poll(() => seen().length, { timeout: 10_000 }).toBe(before + 2);
  ws.close(1000);
  await expect.poll(() => seen().length, { timeout: 10_000 }).toBe(before + 3);
}

describe('the live room on the gateway’s calls', () => {
  it('is the dev user’s room on connect, uplink and disconnect', async () => {
    await session({});
    const nick = encodeURIComponent('主播安');
    expect(seen()).toEqual([
      ['connect', 'ann', '7001', 'anchor-ann', nick],
      ['uplink', 'ann', '7001', 'anchor-ann', nick],
      ['disconnect', 'ann', '7001', 'anchor-ann', nick],
    ]);
  });

  it('is the client’s own room when it sends one on the upgrade', async () => {
    await session({ 'X-TT-OPENID': 'bo', 'X-Room-ID': '8002', 'X-Anchor-OpenID': 'bo' });
    expect(seen().slice(-3)).toEqual([
      ['connect', 'bo', '8002', 'bo', null],
      ['uplink', 'bo', '8002', 'bo', null],
      ['disconnect', 'bo', '8002', 'bo', null],
    ]);
  });

  it('refuses a room header that is not printable ASCII, naming it', async () => {
    const ws = new WebSocket(`${dev.url.replace(/^http/, 'ws')}/__dycloud__/ws/connect/`, {
      headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', 'X-Nick-Name': 'caf\u00e9' },
    });
    const refused = await new Promise<{ status: number; body: string }>((resolve) => {
      ws.once('open', () => (ws.close(), resolve({ status: 101, body: '' })));
      ws.once('unexpected-response', (_q, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('latin1')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('x-nick-name must be 1 to 2048 printable ASCII characters');
  });
});
