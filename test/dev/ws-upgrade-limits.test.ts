/**
 * The gateway's two defects found by outside testing, driven over real sockets: upgrades the
 * protocol refuses (raw TCP: a malformed key, version 12, a POST) call no connect and leave no
 * session; every connect that was called gets its disconnect, even for a client that leaves
 * mid-handshake; and a client that reads nothing is cut with 4009 once what waits for it passes
 * CLOUDFN_WS_MAX_QUEUED, is reported failed from then on, is logged once, and does not slow
 * another client's pushes.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { startDevServer as StartDevServer } from '../../src/dev/index.js';
import type { GatewayActivity } from '../../src/platform/gateway/protocol.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { gatewayOf, startProject as startFrom, until, type DevProject } from './project.js';

let startDevServer: typeof StartDevServer;
const FIXTURE = fileURLToPath(new URL('../fixtures/ws-project', import.meta.url));
const PATH = '/websocket_callback';
const BOUND = 1024 * 1024;

let project: DevProject;
const activity: GatewayActivity[] = [];
beforeAll(async () => {
  ensureDist();
  ({ startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as { startDevServer: typeof StartDevServer });
  process.env['CLOUDFN_WS_MAX_QUEUED'] = String(BOUND);
  try {
    project = await startFrom({}, FIXTURE, startDevServer);
  } finally {
    delete process.env['CLOUDFN_WS_MAX_QUEUED'];
  }
  gatewayOf(project.dev).observe((a) => activity.push(a));
});
afterAll(() => project?.close());

type Call = { event: string; headers: Record<string, string> };
async function calls(): Promise<Call[]> {
  return (await project.get('/calls')).json as Call[];
}

/** Sends a raw upgrade request; resolves with the status line and the socket (left open on 101). */
function rawUpgrade(lines: string[]): Promise<{ status: number; head: string; socket: Socket }> {
  const { port } = new URL(project.dev.url);
  const socket = tcpConnect(Number(port), '127.0.0.1');
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), head: text.slice(0, end), socket });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

function upgradeLines(overrides: { method?: string; key?: string; version?: string; openid: string }): string[] {
  return [
    `${overrides.method ?? 'GET'} /__dycloud__/ws/connect/ HTTP/1.1`,
    `Host: 127.0.0.1`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    `Sec-WebSocket-Key: ${overrides.key ?? 'dGhlIHNhbXBsZSBub25jZQ=='}`,
    `Sec-WebSocket-Version: ${overrides.version ?? '13'}`,
    `X-TT-SERVICE-PATH: ${PATH}`,
    `X-TT-OPENID: ${overrides.openid}`,
    ...(overrides.method === 'POST' ? ['Content-Length: 0'] : []),
  ];
}

function open(openid: string): Promise<{ ws: WebSocket; frames: string[] }> {
  const ws = new WebSocket(`${project.dev.url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
    headers: { 'X-TT-SERVICE-PATH': PATH, 'X-TT-OPENID': openid },
  });
  const frames: string[] = [];
  ws.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, frames }));
    ws.once('error', reject);
  });
}

async function push(sessionId: string, body: Buffer | string) {
  const res = await fetch(`${project.dev.url}/_cloudfn/ws-push/ws/push_data`, {
    method: 'POST',
    headers: { 'X-TT-WS-SESSIONIDS': JSON.stringify([sessionId]), 'content-type': 'application/octet-stream' },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return (await res.json()) as { err_no: number; data: { failed_session_id_list: string[] } };
}

describe('upgrades the protocol refuses', () => {
  const cases = [
    { name: 'a malformed Sec-WebSocket-Key', openid: 'bad-key', key: 'not-a-key', status: 400 },
    { name: 'Sec-WebSocket-Version: 12', openid: 'bad-version', version: '12', status: 400 },
    { name: 'an upgrade sent as POST', openid: 'bad-method', method: 'POST', status: 405 },
  ];
  for (const c of cases) {
    it(`${c.name} is answered ${c.status}, calls no connect and lists no session`, async () => {
      const answer = await rawUpgrade(upgradeLines(c));
      answer.socket.destroy();
      expect(answer.status).toBe(c.status);
      if (c.version !== undefined) expect(answer.head.toLowerCase()).toContain('sec-websocket-version: 13, 8');
      const seen = (await calls()).filter((call) => call.headers['x-tt-openid'] === c.openid);
      expect(seen).toEqual([]);
      const listed = (await project.get('/_cloudfn/api/connections')).json.connections as { openid: string }[];
      expect(listed.filter((s) => s.openid === c.openid)).toEqual([]);
      expect(activity.filter((a) => a.type === 'connect' && a.session.openid === c.openid)).toEqual([]);
    });
  }

  it('a well-formed raw upgrade still opens (the checks refuse only what the protocol does)', async () => {
    const answer = await rawUpgrade(upgradeLines({ openid: 'raw-ok' }));
    expect(answer.status).toBe(101);
    answer.socket.destroy();
    await until(
      async () =>
        (await calls()).some((c) => c.headers['x-tt-openid'] === 'raw-ok' && c.event === 'disconnect')
          ? true
          : undefined,
      5000,
      'the disconnect of raw-ok',
    );
  });
});

describe('every connect gets its disconnect', () => {
  it('holds for clients that close, that vanish, and that leave mid-handshake', async () => {
    const closing = await open('leaves-cleanly');
    closing.ws.close();
    const vanishing = await open('vanishes');
    vanishing.ws.terminate();
    for (let i = 0; i < 5; i++) {
      const half = await new Promise<Socket>((resolve) => {
        const { port } = new URL(project.dev.url);
        const socket = tcpConnect(Number(port), '127.0.0.1', () => resolve(socket));
      });
      half.end(`${upgradeLines({ openid: 'half-open' }).join('\r\n')}\r\n\r\n`);
      half.on('error', () => undefined);
      half.resume();
    }
    const who = ['leaves-cleanly', 'vanishes', 'half-open'];
    await until(
      async () => {
        const mine = (await calls()).filter((c) => who.includes(c.headers['x-tt-openid'] ?? ''));
        const connects = mine.filter((c) => c.event === 'connect').map((c) => c.headers['x-tt-sessionid']);
        const disconnects = mine.filter((c) => c.event === 'disconnect').map((c) => c.headers['x-tt-sessionid']);
        return connects.length >= 2 && [...connects].sort().join() === [...disconnects].sort().join()
          ? true
          : undefined;
      },
      10_000,
      'a disconnect for every connect',
    );
    expect(
      gatewayOf(project.dev)
        .sessions()
        .filter((s) => who.includes(s.openid)),
    ).toEqual([]);
  });
});

describe('a client that reads nothing', () => {
  it('is closed with 4009 past the bound, reported failed from then on, logged once; others are not slowed', async () => {
    const stuck = await rawUpgrade(upgradeLines({ openid: 'reads-nothing' }));
    expect(stuck.status).toBe(101);
    stuck.socket.pause();
    const reader = await open('reads-everything');
    const sessions = gatewayOf(project.dev).sessions();
    const stuckId = sessions.find((s) => s.openid === 'reads-nothing')!.sessionId;
    const readerId = sessions.find((s) => s.openid === 'reads-everything')!.sessionId;
    const chunk = Buffer.alloc(256 * 1024, 7);
    let firstFailure = -1;
    // Far more than the bound plus what the kernel's socket buffers take.
    for (let i = 0; i < 200; i++) {
      const answer = await push(stuckId, chunk);
      expect(answer.err_no).toBe(0);
      const failed = answer.data.failed_session_id_list.includes(stuckId);
      if (firstFailure < 0 && failed) firstFailure = i;
      if (firstFailure >= 0) expect(failed, `push ${i} after the first failure at ${firstFailure}`).toBe(true);
    }
    expect(firstFailure).toBeGreaterThan(0);
    const started = Date.now();
    const got = new Promise<void>((resolve) => reader.ws.once('message', () => resolve()));
    expect((await push(readerId, 'still here')).data.failed_session_id_list).toEqual([]);
    await got;
    expect(Date.now() - started).toBeLessThan(2000);
    const closedWith = activity.find((a) => a.type === 'disconnect' && a.sessionId === stuckId);
    expect(closedWith).toMatchObject({ code: 4009 });
    const warnings = project.records.filter((r) => JSON.stringify(r).includes('"ws":"overflow"'));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('CLOUDFN_WS_MAX_QUEUED');
    const disconnects = (await calls()).filter(
      (c) => c.event === 'disconnect' && c.headers['x-tt-sessionid'] === stuckId,
    );
    expect(disconnects).toHaveLength(1);
    stuck.socket.destroy();
    reader.ws.close();
  }, 60_000);
});
