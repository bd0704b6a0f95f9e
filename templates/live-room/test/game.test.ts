import { afterAll, beforeAll, expect, it } from 'vitest';
import { invoke, startLiveRooms, type TestLiveRooms } from 'cloudfn/testing';

// start_game and finish_game start and stop the room's four data tasks through openApiInvoke.
// startLiveRooms answers the platform's task API in process with the local simulator's rules
// (the same as cloudfn dev's): a task call needs the room, the app and the message type.
let live: TestLiveRooms;
beforeAll(() => {
  live = startLiveRooms();
});
afterAll(() => live.close());

const TYPES = ['live_comment', 'live_gift', 'live_like', 'live_fansclub'] as const;

// The anchor's game client in room 7001, as the platform's gateway sends its calls: the user,
// the app and the room (X-TT-OPENID, X-TT-APPID, X-Room-ID, X-Anchor-OpenID).
const anchor = { user: { openid: 'anchor-1', appid: 'tt-live-game', roomid: '7001', anchorOpenid: 'anchor-1' } };

it("starts the room's data tasks, and makes the caller the room's anchor", async () => {
  const res = await invoke<{ room: string; anchor: string; started: Record<string, string> }>(
    'functions/start_game.ts',
    { method: 'POST', body: {}, ...anchor },
  );
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ room: '7001', anchor: 'anchor-1', failed: {} });
  expect(Object.keys(res.json!.started)).toEqual([...TYPES]);
  expect(TYPES.map((type) => live.status('7001', type))).toEqual([3, 3, 3, 3]);
  expect(live.rooms()).toMatchObject([{ roomid: '7001', anchor: 'anchor-1', anchorFrom: 'start_game' }]);
});

it("stops the room's data tasks when the round ends", async () => {
  const res = await invoke('functions/finish_game.ts', { method: 'POST', body: {}, ...anchor });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ room: '7001', stopped: [...TYPES] });
  expect(TYPES.map((type) => live.status('7001', type))).toEqual([2, 2, 2, 2]);
});

it('reports the tasks the platform refused: a call without the app', async () => {
  // The room's headers alone, trusted as behind the platform's gateway, with no X-TT-APPID.
  const res = await invoke<{ started: object; failed: Record<string, string> }>(
    'functions/start_game.ts',
    { method: 'POST', body: {}, headers: { 'x-room-id': '7002', 'x-anchor-openid': 'anchor-2' } },
    { runtime: { trustGatewayHeaders: true } },
  );
  expect(res.status).toBe(200);
  expect(res.json?.started).toEqual({});
  expect(Object.keys(res.json!.failed)).toEqual([...TYPES]);
  expect(res.json!.failed['live_comment']).toContain('appid must be a non-empty string');
  expect(live.status('7002', 'live_comment')).toBe(1);
});

it('refuses a call from outside a live room', async () => {
  const res = await invoke<{ error: { message: string } }>('functions/start_game.ts', { method: 'POST', body: {} });
  expect(res.status).toBe(400);
  expect(res.json?.error.message).toContain('no live room');
});
