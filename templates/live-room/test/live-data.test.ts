import { afterAll, beforeAll, expect, it } from 'vitest';
import { invokeLiveData, openGateway, type TestGateway } from 'cloudfn/testing';

// The round's messages, end to end in process: the anchor's game client is connected to
// websocket_callback through a simulated WebSocket gateway, the platform pushes a batch of gifts
// to live_data_callback (signed, with the room's headers), and the batch reaches the anchor.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await openGateway('functions/websocket_callback.ts');
});
afterAll(() => gateway.close());

it("pushes a signed batch of gifts on to the anchor's game client", async () => {
  const anchor = await gateway.connect({ path: '/websocket_callback', openid: 'anchor-1' });
  const res = await invokeLiveData('functions/live_data_callback.ts', {
    msgType: 'live_gift',
    messages: [{ sec_gift_id: 'rose', gift_num: 3 }, {}],
    roomid: '7001',
    anchorOpenid: 'anchor-1',
  });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    received: 2,
    msg_type: 'live_gift',
    roomid: '7001',
    anchor: 'anchor-1',
    pushed: true,
    failed: [],
  });
  const frame = (await anchor.next()).json as { msg_type: string; data: string };
  expect(frame.msg_type).toBe('live_gift');
  expect(JSON.parse(frame.data)).toEqual(res.messages);
  await anchor.close();
});

it("reports the anchor's push as failed when its game client is not connected", async () => {
  const res = await invokeLiveData('functions/live_data_callback.ts', {
    msgType: 'live_comment',
    roomid: '7002',
    anchorOpenid: 'anchor-away',
  });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({ anchor: 'anchor-away', pushed: false, failed: ['anchor-away'] });
});

it('refuses a push signed with another secret, and pushes nothing', async () => {
  const before = gateway.pushes.length;
  const res = await invokeLiveData('functions/live_data_callback.ts', {
    msgType: 'live_comment',
    anchorOpenid: 'anchor-1',
    secret: 'not-this-apps-secret',
  });
  expect(res.status).toBe(401);
  expect(gateway.pushes).toHaveLength(before);
});

it("answers the game client's uplinks on its WebSocket", async () => {
  const anchor = await gateway.connect({ path: '/websocket_callback', openid: 'anchor-1' });
  const answer = await anchor.send('ready');
  expect(answer.status).toBe(200);
  expect(answer.json).toEqual({ echo: 'ready' });
  await anchor.close();
});
