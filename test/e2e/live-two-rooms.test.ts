/**
 * Two live rooms at once under the real `cloudfn dev --platform` (issue 41's first "done
 * means"), with the live-room fixture's functions (start_game reads getContext() and starts the
 * room's tasks; live_data_callback pushes each batch to `x-anchor-openid` through
 * live_interaction/push_data). Anchor A in room 7001 and anchor B in room 7002 each connect a
 * `ws` client with their room's headers and call start_game as themselves (without X-TT-APPID,
 * which the dev user's appid fills in); a comment injected into each room reaches only that
 * room's anchor, and the simulator lists both rooms with their anchors.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { freePort } from '../testing/free-port.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const FIXTURE = fileURLToPath(new URL('../fixtures/live-room', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'cloudfn-two-rooms-'));
cpSync(FIXTURE, root, { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

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

describe('two live rooms under cloudfn dev --platform', () => {
  it('each anchor receives only its own room’s comments', async () => {
    ensureDist();
    const port = await freePort();
    const args = [CLI, 'dev', root, '--port', String(port), '--platform', '--platform-port', '0', '--no-typecheck'];
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const sockets: WebSocket[] = [];
    try {
      const url = await until(
        () => /dev server on (http:\/\/[\d.:]+)/.exec(output)?.[1],
        90_000,
        () => `the dev server (got ${output})`,
      );
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
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    }
  }, 150_000);
});
