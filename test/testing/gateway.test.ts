/**
 * `openGateway` of `cloudfn/testing`: simulated clients, in process and without sockets, reach a
 * function through the real pipeline with the gateway's headers, and the function's pushes
 * (openApiInvoke of the push hosts) land on them. The fixture imports the SDK stand-in, which
 * Node loads itself, so this runs the built package (dist/), as users get it.
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
let open: Testing.TestGateway | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('openGateway', () => {
  it('connects, sends uplinks and records what the function pushed', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO }));
    const anchor = await gateway.connect({ path: '/websocket_callback', openid: 'anchor' });
    expect(anchor.sessionId).toMatch(/^\d+$/);
    const answer = await anchor.send('hello');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { failed_session_id_list: [] }, err_msg: 'success', err_no: 0 });
    expect((await anchor.next()).json).toEqual({ echo: 'hello' });
    expect(gateway.pushes).toEqual([
      { type: 'push', sessionId: anchor.sessionId, data: '{"echo":"hello"}', binary: false, via: 'session' },
    ]);
    const connect = gateway.logs.find((r) => r.msg?.startsWith('GET /websocket_callback 200'));
    expect(connect).toBeDefined();
  });

  it('answers the push API bound to it: groups, openids, the 5-id limit', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO }));
    const a = await gateway.connect({ path: '/websocket_callback', openid: 'a' });
    const b = await gateway.connect({ path: '/websocket_callback', openid: 'b' });
    await a.send('join:red');
    expect(gateway.gateway.groupMembers('room', 'red')).toEqual([a.sessionId]);
    const group = { 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': 'red' };
    expect((await gateway.pushApi({ path: '/ws/group/push_data', headers: group, body: 'red only' })).body.err_no).toBe(
      0,
    );
    expect((await a.next()).text).toBe('red only');
    expect(b.messages).toEqual([]);
    const six = await gateway.pushApi({
      path: '/ws/push_data',
      headers: { 'X-TT-WS-OPENIDS': '["a","b","c","d","e","f"]' },
      body: 'x',
    });
    expect(six).toMatchObject({ status: 400, body: { err_no: 40001, data: null } });
    const live = await gateway.pushApi({
      path: '/ws/live_interaction/push_data',
      headers: { 'X-TT-WS-OPENIDS': '["b"]' },
      body: '{"msg":1}',
    });
    expect(live.body).toEqual({ data: { failed_session_id_list: [] }, err_msg: 'success', err_no: 0 });
    expect((await b.next()).json).toEqual({ msg: 1 });
  });

  it('rejects a refused connect with its status, and sends disconnect on close', async () => {
    const gateway = (open = await testing.openGateway(CALLBACK, { cwd: REPO }));
    const refused = await gateway.connect({ path: '/websocket_callback', openid: 'banned' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(testing.ConnectRefusedError);
    expect(refused).toMatchObject({ status: 403 });
    const client = await gateway.connect({ path: '/websocket_callback' });
    expect(client.openid).toBe('dev-openid');
    await client.close(1000, 'done');
    expect(gateway.activity.at(-1)).toMatchObject({
      type: 'disconnect',
      sessionId: client.sessionId,
      code: 1000,
      status: 200,
    });
    expect(
      (await gateway.pushApi({ path: '/ws/push_data', headers: { 'X-TT-WS-SESSIONIDS': `[${client.sessionId}]` } }))
        .body,
    ).toEqual({ data: { failed_session_id_list: [client.sessionId] }, err_msg: 'success', err_no: 0 });
  });

  it('takes a plain handler, and closes its clients with 1001', async () => {
    const seen: string[] = [];
    const gateway = (open = await testing.openGateway(
      {
        name: 'ws',
        handler: (_params: unknown, service: { headers: Record<string, unknown> }) => {
          seen.push(`${service.headers['x-tt-event-type']} ${service.headers['x-tt-envid']}`);
          return { ok: true };
        },
      },
      { identity: { envId: 'env-test' } },
    ));
    const client = await gateway.connect({ path: '/ws', openid: 'p' });
    expect((await client.send(new Uint8Array([1, 2]))).status).toBe(200);
    await gateway.close();
    open = undefined;
    expect(client.closed).toEqual({ code: 1001, reason: 'the test gateway closed' });
    expect(seen).toEqual(['connect env-test', 'uplink env-test', 'disconnect env-test']);
    expect(process.env['CLOUDFN_WS_PUSH_URL']).toBeUndefined();
  });
});
