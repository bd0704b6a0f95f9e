/**
 * Two live rooms at once under the real `cloudfn dev --platform` (issue 41's first "done
 * means"), with the live-room fixture's functions (start_game reads getContext() and starts the
 * room's tasks; live_data_callback pushes each batch to `x-anchor-openid` through
 * live_interaction/push_data). Anchor A in room 7001 and anchor B in room 7002 each connect a
 * `ws` client with their room's headers and call start_game as themselves (without X-TT-APPID,
 * which the dev user's appid fills in); a comment injected into each room reaches only that
 * room's anchor, and the simulator lists both rooms with their anchors. A token minted for room
 * 7001 by `cloudfn live token` trades, through a function's openApiInvoke of
 * `webcastmate/info` on both hosts, for the room and its anchor; an unknown one does not.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { freePort } from '../testing/free-port.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const FIXTURE = fileURLToPath(new URL('../fixtures/live-room', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'cloudfn-two-rooms-'));
cpSync(FIXTURE, root, { recursive: true });
// A function that trades a token for its room, as a game server outside the SDK's client does.
writeFileSync(
  join(root, 'trade_token.ts'),
  `import { dySDK } from '@open-dy/node-server-sdk';
export default async function (params: { token: string; host: string }, service: object) {
  return dySDK.context(service).openApiInvoke({
    url: params.host + '/api/webcastmate/info',
    method: 'POST',
    headers: { 'X-Token': params.token },
    data: { token: params.token },
  });
}
`,
);

const ANCHORS = [
  { roomid: '7001', openid: 'anchor-a' },
  { roomid: '7002', openid: 'anchor-b' },
];

async function until<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function roomHeaders(anchor: { roomid: string; openid: string }): Record<string, string> {
  return { 'X-TT-OPENID': anchor.openid, 'X-Room-ID': anchor.roomid, 'X-Anchor-OpenID': anchor.openid };
}

let url: string;
let output = '';
let stop: () => Promise<unknown> = async () => undefined;
beforeAll(async () => {
  ensureDist();
  const port = await freePort();
  const args = [CLI, 'dev', root, '--port', String(port), '--platform', '--platform-port', '0', '--no-typecheck'];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    return exited;
  };
  url = await until(
    () => /dev server on (http:\/\/[\d.:]+)/.exec(output)?.[1],
    90_000,
    () => `the dev server (got ${output})`,
  );
}, 120_000);
afterAll(async () => {
  await stop();
  rmSync(root, { recursive: true, force: true });
});

describe('two live rooms under cloudfn dev --platform', () => {
  it('each anchor receives only its own room’s comments', async () => {
    const sockets: WebSocket[] = [];
    try {
      const received = new Map<string, string[]>();
      for (const anchor of ANCHORS) {
        const ws = new WebSocket(`${url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
          headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', ...roomHeaders(anchor) },
        });
        sockets.push(ws);
        const contents: string[] = [];
        received.set(anchor.openid, contents);
        ws.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString('utf8')) as { msg_type?: string; data?: string };
          if (frame.msg_type !== 'live_comment' || frame.data === undefined) return;
          for (const m of JSON.parse(frame.data) as { content: string }[]) contents.push(m.content);
        });
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        const game = await fetch(`${url}/start_game`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...roomHeaders(anchor) },
          body: '{}',
        });
        const answer = (await game.json()) as { room: string; anchor: string; failed: object };
        expect(answer, output).toMatchObject({ room: anchor.roomid, anchor: anchor.openid, failed: {} });
      }
      const rooms = (await (await fetch(`${url}/_cloudfn/live/rooms`)).json()) as {
        rooms: { roomid: string; anchor: string; anchorFrom: string; tasks: unknown[] }[];
      };
      expect(rooms.rooms.map((r) => [r.roomid, r.anchor, r.anchorFrom, r.tasks.length])).toEqual([
        ['7001', 'anchor-a', 'start_game', 4],
        ['7002', 'anchor-b', 'start_game', 4],
      ]);
      for (const anchor of ANCHORS) {
        const sent = await fetch(`${url}/_cloudfn/live/${anchor.roomid}/live_comment`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: `for ${anchor.roomid}` }),
        });
        const body = (await sent.json()) as { status: number; body: string };
        expect(body.status).toBe(200);
        expect(JSON.parse(body.body)).toMatchObject({ roomid: anchor.roomid, anchor: anchor.openid });
      }
      await until(
        () => (ANCHORS.every((a) => received.get(a.openid)!.length > 0) ? true : undefined),
        15_000,
        () => `both comments (got ${JSON.stringify([...received])})`,
      );
      // A moment more, so a push meant for the other room could not still be on its way.
      await new Promise((r) => setTimeout(r, 300));
      expect(received.get('anchor-a')).toEqual(['for 7001']);
      expect(received.get('anchor-b')).toEqual(['for 7002']);
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  }, 60_000);

  it('trades a token from cloudfn live token for its room through webcastmate/info, on both hosts', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'live', 'token', '7001', '--url', url]);
    const token = stdout.trim();
    expect(token).toMatch(/^[\w-]{20,}$/);
    const trade = async (host: string, given: string) => {
      const res = await fetch(`${url}/trade_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: given, host }),
      });
      return (await res.json()) as { err_no: number; data: { info: Record<string, unknown> } | null };
    };
    for (const host of ['https://webcast.bytedance.com', 'http://webcast-bytedance-com.openapi.dyc.ivolces.com']) {
      const answer = await trade(host, token);
      expect(answer.err_no, host).toBe(0);
      expect(answer.data!.info).toMatchObject({ room_id: 7001, anchor_open_id: 'anchor-a', nick_name: 'anchor-a' });
      expect((await trade(host, 'not-a-token')).err_no, host).not.toBe(0);
    }
  }, 60_000);
});
