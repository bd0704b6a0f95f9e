/**
 * Each live room's anchor (issue 41): learnt from the calls that carry the room (a task start
 * made from a function's request in that room, the anchor's own WebSocket), with
 * `liveData.anchorOpenid` and then the dev user as the fallback of a room that never said; and
 * each room's pushes naming its own anchor. The parts on their own, then the WebSocket's claim
 * under a dev server with a real `ws` client.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { startDevServer } from '../../src/dev/index.js';
import { LiveRooms } from '../../src/platform/live/rooms.js';
import { answerTaskCall, callerRoom } from '../../src/platform/live/task-api.js';

function rooms(anchorOpenid?: string): LiveRooms {
  return new LiveRooms({
    config: () => ({ path: '/cb', ...(anchorOpenid === undefined ? {} : { anchorOpenid }) }),
    defaultAnchor: 'dev-user',
    deliver: async () => ({ status: 200, logid: 'l', body: '' }),
  });
}

function start(r: LiveRooms, roomid: string, caller?: { roomid?: string; anchorOpenid?: string }) {
  return answerTaskCall(r, {
    method: 'POST',
    path: '/api/live_data/task/start',
    query: new URLSearchParams(),
    body: { roomid, appid: 'tt1', msg_type: 'live_comment' },
    ...(caller === undefined ? {} : { caller }),
  })!;
}

describe('a room’s anchor', () => {
  it('falls back to liveData.anchorOpenid, then to the dev user, for a room that never said', () => {
    expect(rooms('cfg').anchorOf('7001')).toEqual({ anchor: 'cfg', from: 'config' });
    expect(rooms().anchorOf('7001')).toEqual({ anchor: 'dev-user', from: 'dev user' });
  });

  it('is the one a start from that room named, room by room, and pushes carry it', () => {
    const r = rooms('cfg');
    expect(start(r, '7001', { roomid: '7001', anchorOpenid: 'anchor-a' }).body.err_no).toBe(0);
    expect(start(r, '7002', { roomid: '7002', anchorOpenid: 'anchor-b' }).body.err_no).toBe(0);
    // A start for another room than the caller's names no anchor for it.
    expect(start(r, '7003', { roomid: '7001', anchorOpenid: 'anchor-a' }).body.err_no).toBe(0);
    expect(r.rooms().map((x) => [x.roomid, x.anchor, x.anchorFrom])).toEqual([
      ['7001', 'anchor-a', 'start_game'],
      ['7002', 'anchor-b', 'start_game'],
      ['7003', 'cfg', 'config'],
    ]);
    expect(r.prepare('7001', 'live_comment', {}).push.headers['x-anchor-openid']).toBe('anchor-a');
    expect(r.prepare('7002', 'live_comment', {}).push.headers['x-anchor-openid']).toBe('anchor-b');
    expect(r.prepare('7003', 'live_comment', {}).push.headers['x-anchor-openid']).toBe('cfg');
  });

  it('is taken from a WebSocket’s room headers only when both are there', () => {
    const r = rooms();
    r.claimFrom({ 'x-room-id': '7005' });
    expect(r.anchorOf('7005').from).toBe('dev user');
    r.claimFrom({ 'x-room-id': '7005', 'x-anchor-openid': 'anchor-e' });
    expect(r.anchorOf('7005')).toEqual({ anchor: 'anchor-e', from: 'websocket' });
  });

  it('reads the caller’s room from cloudfn’s own headers, not the gateway’s (which the dev server fills)', () => {
    expect(callerRoom({ 'x-cloudfn-room-id': '7001', 'x-cloudfn-anchor-openid': ' a ' })).toEqual({
      roomid: '7001',
      anchorOpenid: 'a',
    });
    expect(callerRoom({ 'x-room-id': '7001', 'x-anchor-openid': 'a' })).toEqual({});
  });
});

describe('the task calls’ hint', () => {
  it('echoes the room and type that were called', () => {
    const answer = answerTaskCall(rooms(), {
      method: 'POST',
      path: '/api/live_data/task/start',
      query: new URLSearchParams(),
      body: { roomid: '8123', msg_type: 'live_gift' },
    })!;
    expect(answer.status).toBe(400);
    expect(answer.body.err_msg).toContain('appid must be a non-empty string');
    expect(answer.body.err_msg).toContain('{"roomid":"8123","appid":"tt…","msg_type":"live_gift"}');
    expect(answer.body.err_msg).not.toContain('7001');
  });
});

describe('the anchor’s WebSocket under cloudfn dev', () => {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-live-anchors-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names its room’s anchor; a client sending no room leaves the fallback', async () => {
    writeFileSync(join(root, 'websocket_callback.mjs'), `export default () => ({ ok: true });\n`);
    writeFileSync(
      join(root, 'live_data_callback.mjs'),
      `export default (params, service) => ({ anchor: service.headers['x-anchor-openid'] });\n`,
    );
    writeFileSync(
      join(root, 'cloudfn.config.json'),
      JSON.stringify({
        functionsDir: '.',
        liveData: { path: '/live_data_callback', anchorOpenid: 'cfg' },
        devUser: { openid: 'dev', roomid: '7009', anchorOpenid: 'dev-anchor' },
      }),
    );
    const dev = await startDevServer({ root, port: 0, sink: createMemorySink() });
    const open = (headers: Record<string, string>) => {
      const ws = new WebSocket(`${dev.url.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
        headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', ...headers },
      });
      return new Promise<WebSocket>((resolve, reject) => ws.once('open', () => resolve(ws)).once('error', reject));
    };
    try {
      const anchor = await open({ 'X-TT-OPENID': 'anchor-w', 'X-Room-ID': '7008', 'X-Anchor-OpenID': 'anchor-w' });
      const plain = await open({ 'X-TT-OPENID': 'viewer' });
      for (const roomid of ['7008', '7009']) {
        const task = { roomid, appid: 'tt-dev-app', msg_type: 'live_comment' };
        await fetch(`${dev.url}/_cloudfn/live/api/live_data/task/start`, {
          method: 'POST',
          body: JSON.stringify(task),
        });
      }
      const listed = (await (await fetch(`${dev.url}/_cloudfn/live/rooms`)).json()) as {
        rooms: { roomid: string; anchor: string; anchorFrom: string }[];
      };
      expect(listed.rooms.map((x) => [x.roomid, x.anchor, x.anchorFrom])).toEqual([
        ['7008', 'anchor-w', 'websocket'],
        ['7009', 'cfg', 'config'],
      ]);
      const sent = (await (
        await fetch(`${dev.url}/_cloudfn/live/7008/live_comment`, { method: 'POST', body: '{"content":"hi"}' })
      ).json()) as { body: string };
      expect(JSON.parse(sent.body)).toEqual({ anchor: 'anchor-w' });
      anchor.close();
      plain.close();
    } finally {
      await dev.close();
    }
  });
});
