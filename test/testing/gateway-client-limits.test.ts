/**
 * `openGateway`'s clients as the platform's mini-program client behaves (issue 41): a client in
 * a live room sends the room's headers on every call; one client holds at most 5 sockets, and a
 * sixth is refused before any call; `background()` closes the socket after 5 s (or
 * `backgroundCloseMs`) with the function's disconnect call, unless `foreground()` comes first.
 * The fixture records every call it receives, so the headers and calls are the function's view.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Testing from '../../src/testing/index.js';
import { ensureDist, REPO } from './ensure-dist.js';

let testing: typeof Testing;
beforeAll(async () => {
  ensureDist();
  testing = (await import(`${REPO}/dist/src/testing/index.js`)) as typeof Testing;
});

const CALLBACK = 'test/fixtures/ws-project/functions/websocket_callback.ts';
type Call = { event: string; headers: Record<string, string> };
const calls = (): Call[] => ((globalThis as { __wsCalls?: Call[] }).__wsCalls ??= []);
let open: Testing.TestGateway | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('openGateway clients', () => {
  it('send the room they are in on every call, the anchor defaulting to the client', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO }));
    const anchor = await gateway.connect({ path: '/websocket_callback', openid: 'anchor-a', room: { roomid: '7001' } });
    const viewer = await gateway.connect({
      path: '/websocket_callback',
      openid: 'viewer',
      room: { roomid: '7002', anchorOpenid: 'anchor-b', nickName: 'Vee' },
    });
    const of = (id: string) => calls().find((c) => c.headers['x-tt-sessionid'] === id && c.event === 'connect')!;
    expect(of(anchor.sessionId).headers).toMatchObject({ 'x-room-id': '7001', 'x-anchor-openid': 'anchor-a' });
    expect(of(viewer.sessionId).headers).toMatchObject({
      'x-room-id': '7002',
      'x-anchor-openid': 'anchor-b',
      'x-nick-name': 'Vee',
    });
  });

  it('refuse a sixth socket of one client before any call, and take one again after a close', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO }));
    const five = [];
    for (let i = 0; i < 5; i++) five.push(await gateway.connect({ path: '/websocket_callback', openid: 'many' }));
    const before = calls().length;
    const sixth = gateway.connect({ path: '/websocket_callback', openid: 'many' });
    await expect(sixth).rejects.toBeInstanceOf(testing.SocketLimitError);
    await expect(sixth).rejects.toThrow(/connectSocket:fail many already holds 5 sockets/);
    expect(calls().length).toBe(before);
    // Another client of the same user is counted apart.
    await gateway.connect({ path: '/websocket_callback', openid: 'many', client: 'second-phone' });
    await five[0]!.close();
    await expect(gateway.connect({ path: '/websocket_callback', openid: 'many' })).resolves.toBeDefined();
  });

  it('close 5 s after background() with the disconnect call, unless foreground() came first', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO, backgroundCloseMs: 200 }));
    const stays = await gateway.connect({ path: '/websocket_callback', openid: 'stays' });
    const staying = stays.background();
    stays.foreground();
    await staying;
    const leaves = await gateway.connect({ path: '/websocket_callback', openid: 'leaves' });
    const started = Date.now();
    await leaves.background();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(leaves.closed).toEqual({ code: 1000, reason: 'the app went to the background' });
    const events = calls()
      .filter((c) => c.headers['x-tt-sessionid'] === leaves.sessionId)
      .map((c) => c.event);
    expect(events).toEqual(['connect', 'disconnect']);
    await new Promise((r) => setTimeout(r, 300));
    expect(stays.closed).toBeUndefined();
    expect(gateway.gateway.sessions().map((s) => s.openid)).toEqual(['stays']);
  });

  it('default to the platform client’s 5 s', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO }));
    const client = await gateway.connect({ path: '/websocket_callback', openid: 'slow' });
    const started = Date.now();
    await client.background();
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
  }, 15_000);
});
