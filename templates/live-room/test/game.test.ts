import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { invoke } from 'cloudfn/testing';

// start_game and finish_game start and stop the room's four data tasks through openApiInvoke.
// Here the platform's task API is a small local server (CLOUDFN_LIVE_URL sends the server SDK
// stand-in's task calls to it), which records each call and answers as the platform does.
const calls: { path: string; body: { roomid: string; msg_type: string } }[] = [];
let platform: Server;

beforeAll(async () => {
  platform = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { roomid: string; msg_type: string };
      calls.push({ path: req.url ?? '', body: parsed });
      // The platform refuses the fans-club task of a room that has no fans club.
      const answer =
        parsed.msg_type === 'live_fansclub'
          ? { err_no: 40001, err_msg: 'fans club not enabled' }
          : { err_no: 0, err_msg: 'success', data: { task_id: `task-${parsed.msg_type}` } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  process.env.CLOUDFN_LIVE_URL = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
});
afterAll(() => {
  delete process.env.CLOUDFN_LIVE_URL;
  platform.close();
});

// The gateway's live-room headers, trusted as behind the platform's gateway.
const fromRoom = { headers: { 'x-room-id': '7001', 'x-anchor-openid': 'anchor-1' } };
const behindGateway = { runtime: { trustGatewayHeaders: true } };

it("starts the room's data tasks, and reports the one the platform refused", async () => {
  const res = await invoke('functions/start_game.ts', { method: 'POST', body: {}, ...fromRoom }, behindGateway);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    room: '7001',
    anchor: 'anchor-1',
    started: { live_comment: 'task-live_comment', live_gift: 'task-live_gift', live_like: 'task-live_like' },
    failed: { live_fansclub: 'fans club not enabled' },
  });
  expect(calls.filter((c) => c.path === '/api/live_data/task/start').map((c) => c.body.roomid)).toEqual([
    '7001',
    '7001',
    '7001',
    '7001',
  ]);
});

it("stops the room's data tasks when the round ends", async () => {
  const res = await invoke('functions/finish_game.ts', { method: 'POST', body: {}, ...fromRoom }, behindGateway);
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ room: '7001', stopped: ['live_comment', 'live_gift', 'live_like'] });
});

it('refuses a call from outside a live room', async () => {
  const res = await invoke<{ error: { message: string } }>('functions/start_game.ts', { method: 'POST', body: {} });
  expect(res.status).toBe(400);
  expect(res.json?.error.message).toContain('no live room');
});
