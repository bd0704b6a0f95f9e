/**
 * `startLiveRooms` of `cloudfn/testing` (issue 41): the live-room fixture's start_game runs under
 * `invoke` and starts its room's four tasks through the SDK stand-in's openApiInvoke, answered in
 * process; the room's anchor is the caller's; a token minted here trades through
 * `webcastmate/info`; and without it, the failure names startLiveRooms, what to start.
 * The fixture imports the SDK stand-in, which Node loads itself, so this runs dist/.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Testing from '../../src/testing/index.js';
import { ensureDist, REPO } from './ensure-dist.js';

const START_GAME = fileURLToPath(new URL('../fixtures/live-room/start_game.ts', import.meta.url));
const TYPES = ['live_comment', 'live_gift', 'live_like', 'live_fansclub'];
const ANCHOR = { openid: 'anchor-a', appid: 'tt-live-app', roomid: '7001', anchorOpenid: 'anchor-a' };
let testing: typeof Testing;
let live: Testing.TestLiveRooms | undefined;
beforeAll(async () => {
  ensureDist();
  testing = (await import(`${REPO}/dist/src/testing/index.js`)) as typeof Testing;
}, 120_000);
afterEach(() => {
  live?.close();
  live = undefined;
});

describe('startLiveRooms', () => {
  it('lets start_game start its room’s tasks under invoke, as the anchor', async () => {
    live = testing.startLiveRooms();
    expect(live.url).toBe('https://webcast.bytedance.com');
    expect(process.env['CLOUDFN_LIVE_URL']).toBeUndefined();
    const res = await testing.invoke<{ room: string; started: Record<string, string>; failed: object }>(START_GAME, {
      method: 'POST',
      body: {},
      user: ANCHOR,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ room: '7001', anchor: 'anchor-a', failed: {} });
    expect(Object.keys(res.json!.started).sort()).toEqual([...TYPES].sort());
    for (const type of TYPES) expect(live.status('7001', type as never)).toBe(3);
    expect(live.rooms()).toMatchObject([{ roomid: '7001', anchor: 'anchor-a', anchorFrom: 'start_game' }]);
  });

  it('mints tokens that webcastmate/info trades through openApiInvoke', async () => {
    live = testing.startLiveRooms();
    const token = live.mintToken('7001', { anchorOpenid: 'anchor-a', nickName: 'A' });
    const trade = async (given: string) =>
      (
        await testing.invoke<{ err_no: number; data: { info: object } | null }>(
          async (_params: unknown, service: object) => {
            const { dySDK } = (await import(`${REPO}/dist/src/platform/sdk/public.js`)) as {
              dySDK: { context(s: object): { openApiInvoke(r: object): Promise<unknown> } };
            };
            return dySDK.context(service).openApiInvoke({
              url: 'https://webcast.bytedance.com/api/webcastmate/info',
              method: 'POST',
              headers: { 'X-Token': given },
              data: { token: given },
            });
          },
          { method: 'POST', body: {} },
        )
      ).json!;
    expect(await trade(token)).toMatchObject({
      err_no: 0,
      data: { info: { room_id: 7001, anchor_open_id: 'anchor-a', nick_name: 'A' } },
    });
    expect((await trade('unknown')).err_no).not.toBe(0);
  });

  it('without it, start_game’s failure names startLiveRooms', async () => {
    const res = await testing.invoke<{ failed: Record<string, string> }>(START_GAME, {
      method: 'POST',
      body: {},
      user: ANCHOR,
    });
    expect(res.status).toBe(200);
    for (const type of TYPES) expect(res.json!.failed[type]).toContain('no live-room simulator runs in this process');
    for (const type of TYPES) expect(res.json!.failed[type]).toContain('startLiveRooms()');
    expect(JSON.stringify(res.json)).not.toContain('CLOUDFN_SDK_OPENAPI_URL');
  });
});
