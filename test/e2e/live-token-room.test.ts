/**
 * A live room started from a token (issue 49, defect 2), under the real `cloudfn dev` with the
 * live-room fixture, its start_game replaced by one that trades a token as a game client outside
 * the SDK does: `cloudfn live token 7003 --anchor anchor-c` mints it; `start_game` is called with
 * `{ token }` and no `X-Room-ID`, trades it through `webcastmate/info` and starts the room's four
 * tasks. The room takes the token's anchor: `/_cloudfn/live/rooms` lists it as `anchor-c` from
 * `token` (not the dev user), and a comment in room 7003 reaches anchor-c's WebSocket, which
 * connected without room headers of its own.
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
const root = mkdtempSync(join(tmpdir(), 'cloudfn-token-room-'));
cpSync(FIXTURE, root, { recursive: true });
// No anchor in the config: a room that never said would take the dev user's.
writeFileSync(
  join(root, 'cloudfn.config.json'),
  '{ "functionsDir": ".", "liveData": { "path": "/live_data_callback" } }\n',
);
// A start_game that gets its room from a token, as a game outside the SDK's client does.
writeFileSync(
  join(root, 'start_game.ts'),
  `import { dySDK } from '@open-dy/node-server-sdk';
import { MESSAGE_TYPES, task } from './_live.js';

export default async function (params: { token: string }, service: object) {
  const sdk = dySDK.context(service);
  const traded = (await sdk.openApiInvoke({
    url: 'http://webcast-bytedance-com.openapi.dyc.ivolces.com/api/webcastmate/info',
    method: 'POST',
    headers: { 'X-Token': params.token },
    data: { token: params.token },
  })) as { err_no: number; data: { info: { room_id: number; anchor_open_id: string } } | null };
  if (traded.err_no !== 0 || traded.data === null) return { traded };
  const room = { roomid: String(traded.data.info.room_id), appid: sdk.getContext().appId ?? '' };
  const started: string[] = [];
  for (const msgType of MESSAGE_TYPES) {
    const answer = await task(service, 'start', room, msgType);
    if (typeof answer === 'object' && answer.err_no === 0) started.push(msgType);
  }
  return { room: room.roomid, anchor: traded.data.info.anchor_open_id, started };
}
`,
);

async function until<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let url: string;
let output = '';
let stop: () => Promise<unknown> = async () => undefined;
beforeAll(async () => {
  ensureDist();
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'dev', root, '--port', String(port), '--no-typecheck'], {
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

describe('a room started from a token', () => {
  it("takes the token's anchor: the rooms list says anchor-c (from token) and anchor-c's socket gets the pushes", async () => {
    // anchor-c's game client: its openid only, no room headers of its own.
    const ws = new WebSocket(`${url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
      headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', 'X-TT-OPENID': 'anchor-c' },
    });
    const comments: string[] = [];
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as { msg_type?: string; data?: string };
      if (frame.msg_type !== 'live_comment' || frame.data === undefined) return;
      for (const m of JSON.parse(frame.data) as { content: string }[]) comments.push(m.content);
    });
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const { stdout } = await promisify(execFile)(process.execPath, [
        CLI,
        'live',
        'token',
        '7003',
        '--anchor',
        'anchor-c',
        '--url',
        url,
      ]);
      const token = stdout.trim();
      expect(token).toMatch(/^[\w-]{20,}$/);

      const game = await fetch(`${url}/start_game`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      expect(await game.json(), output).toEqual({
        room: '7003',
        anchor: 'anchor-c',
        started: ['live_comment', 'live_gift', 'live_like', 'live_fansclub'],
      });

      const listed = (await (await fetch(`${url}/_cloudfn/live/rooms`)).json()) as {
        rooms: { roomid: string; anchor: string; anchorFrom: string; tasks: { running: boolean }[] }[];
      };
      const room = listed.rooms.find((r) => r.roomid === '7003');
      expect(room && [room.anchor, room.anchorFrom, room.tasks.filter((t) => t.running).length]).toEqual([
        'anchor-c',
        'token',
        4,
      ]);
      // As the console's Live room panel prints it.
      expect(`anchor ${room!.anchor} (from ${room!.anchorFrom})`).toBe('anchor anchor-c (from token)');

      const sent = await fetch(`${url}/_cloudfn/live/7003/live_comment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'for anchor-c' }),
      });
      const pushed = (await sent.json()) as { status: number; body: string };
      expect(pushed.status).toBe(200);
      expect(JSON.parse(pushed.body)).toMatchObject({ roomid: '7003', anchor: 'anchor-c' });
      await until(
        () => (comments.length > 0 ? true : undefined),
        15_000,
        () => `the comment on anchor-c's socket (got ${JSON.stringify(comments)}; ${output})`,
      );
      expect(comments).toEqual(['for anchor-c']);
    } finally {
      ws.terminate();
    }
  }, 60_000);
});
