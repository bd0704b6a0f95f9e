/**
 * A WebSocket message over the gateway's 10 MiB `maxPayload` (issue 49, defect 1), over real
 * sockets with a real `ws` client: the client reads close code 1009 (not 1006, the socket cut
 * before its close frame was written), ten times in a row; the function's disconnect call
 * carries 1009 too; and the server serves on, a normal message on a new connection answered.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { startDevServer as StartDevServer } from '../../src/dev/index.js';
import type { GatewayActivity } from '../../src/platform/gateway/protocol.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { gatewayOf, startProject as startFrom, until, type DevProject } from './project.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/ws-project', import.meta.url));
const PATH = '/websocket_callback';
/** 11 MiB: one mebibyte over the gateway's maxPayload. */
const OVERSIZE = Buffer.alloc(11 * 1024 * 1024, 0x61);

let project: DevProject;
const activity: GatewayActivity[] = [];
beforeAll(async () => {
  ensureDist();
  const { startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as {
    startDevServer: typeof StartDevServer;
  };
  project = await startFrom({}, FIXTURE, startDevServer);
  gatewayOf(project.dev).observe((a) => activity.push(a));
});
afterAll(() => project?.close());

function connect(openid: string): Promise<WebSocket> {
  const ws = new WebSocket(`${project.dev.url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
    headers: { 'X-TT-SERVICE-PATH': PATH, 'X-TT-OPENID': openid },
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Sends one message of `bytes` and resolves with the close code and reason the client reads. */
async function sendAndReadClose(openid: string, bytes: Buffer): Promise<{ code: number; reason: string }> {
  const ws = await connect(openid);
  // A reset while the rest of the message is still being written is not what is checked here.
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })),
  );
  ws.send(bytes, { binary: true });
  return closed;
}

describe('a message over maxPayload', () => {
  it('is closed with 1009 in 10 runs of 10, the function told 1009, and the server serves on', async () => {
    const codes: number[] = [];
    for (let run = 0; run < 10; run++) codes.push((await sendAndReadClose(`oversize-${run}`, OVERSIZE)).code);
    expect(codes).toEqual(Array(10).fill(1009));
    const ids = new Set(
      activity.flatMap((a) =>
        a.type === 'connect' && a.session.openid.startsWith('oversize-') ? [a.session.sessionId] : [],
      ),
    );
    expect(ids.size).toBe(10);
    const sessions = await until(
      () => {
        const done = activity.filter(
          (a): a is Extract<GatewayActivity, { type: 'disconnect' }> => a.type === 'disconnect' && ids.has(a.sessionId),
        );
        return done.length === 10 ? done : undefined;
      },
      10_000,
      'the ten disconnects',
    );
    expect(sessions.map((a) => a.code)).toEqual(Array(10).fill(1009));
    expect(sessions[0]!.reason).toBe(`a message over the ${10 * 1024 * 1024} bytes a client may send`);

    const ws = await connect('after-oversize');
    try {
      const echoed = new Promise<string>((resolve) => ws.once('message', (data: Buffer) => resolve(data.toString())));
      ws.send('still here');
      expect(JSON.parse(await echoed)).toEqual({ echo: 'still here' });
    } finally {
      ws.close();
    }
  }, 120_000);
});
