/**
 * The gateway without sockets: the push API's answers and errors (every interface, the 5-id
 * limit, id lists as the platform writes them), the order of a connection's uplinks, pushes
 * made during connect, and the stand-in's `openApiInvoke` routing of both push hosts (http and
 * https) to a gateway bound as `memory:<id>`, falling back to CLOUDFN_SDK_OPENAPI_URL.
 */
import { describe, expect, it } from 'vitest';
import { Gateway, type AppCall, type ClientLink } from '../../../src/platform/gateway/gateway.js';
import { handlePush, parseIdList } from '../../../src/platform/gateway/push-api.js';
import { pushRoute } from '../../../src/platform/gateway/push-route.js';
import { serveInMemory } from '../../../runtime/serve/in-memory.js';
import { closeReason } from '../../../src/platform/gateway/ws-server.js';
import { createDySdk } from '../../../src/platform/sdk/sdk.js';

function recordingGateway(answer: (call: AppCall) => number | Promise<number> = () => 200) {
  const calls: AppCall[] = [];
  const gateway = new Gateway({
    identity: { appid: 'tt1', envId: 'env', serviceId: 'svc' },
    call: async (call) => {
      calls.push(call);
      return { status: await answer(call), headers: {}, body: Buffer.from('{}') };
    },
  });
  return { gateway, calls };
}

async function client(gateway: Gateway, openid: string) {
  const opened = await gateway.open({ path: '/ws', openid, ip: '127.0.0.1' });
  if (!opened.ok) throw new Error('refused');
  const frames: string[] = [];
  const link: ClientLink = { send: (data) => frames.push(data.toString()), close: () => undefined };
  gateway.attach(opened.sessionId, link);
  return { sessionId: opened.sessionId, frames };
}

const post = (path: string, headers: Record<string, string>, body = 'x') => ({
  method: 'POST',
  path,
  headers,
  body: Buffer.from(body),
});

describe('parseIdList', () => {
  it('reads JSON strings, numbers that JSON would round, and the bare ids of the platform example', () => {
    expect(parseIdList('X', '["a", "b"]')).toEqual(['a', 'b']);
    expect(parseIdList('X', '[7300000000000000001, 2]')).toEqual(['7300000000000000001', '2']);
    expect(parseIdList('X', '[sessionid_1,sessionid_2]')).toEqual(['sessionid_1', 'sessionid_2']);
  });
  it('refuses what is not a list, an empty list and more than 5, naming the header', () => {
    expect(() => parseIdList('X-TT-WS-OPENIDS', 'ann')).toThrow(/X-TT-WS-OPENIDS must be a JSON array/);
    expect(() => parseIdList('X-TT-WS-OPENIDS', '[]')).toThrow(/empty list/);
    expect(() => parseIdList('X-TT-WS-OPENIDS', '[1,2,3,4,5,6]')).toThrow(/lists 6 ids, at most 5/);
  });
});

describe('the push API', () => {
  it('answers every interface with the envelope', async () => {
    const { gateway } = recordingGateway();
    const a = await client(gateway, 'ann');
    const b = await client(gateway, 'bob');
    const group = { 'x-tt-ws-groupname': 'room', 'x-tt-ws-groupvalue': '1' };
    expect(
      (await handlePush(gateway, post('/ws/group/join', { ...group, 'x-tt-ws-sessionids': `[${a.sessionId}, 42]` })))
        .body,
    ).toEqual({
      data: { failed_session_id_list: ['42'] },
      err_msg: 'success',
      err_no: 0,
    });
    expect((await handlePush(gateway, post('/ws/group/query_info', group))).body.data).toEqual({
      sessionId_list: [a.sessionId],
      openId_list: ['ann'],
    });
    expect(
      (await handlePush(gateway, { ...post('/ws/query_info', { 'x-tt-ws-openids': '["bob"]' }), method: 'GET' })).body
        .data,
    ).toEqual({
      [b.sessionId]: {
        AppID: 'tt1',
        ServiceID: 'svc',
        EnvID: 'env',
        BackendPath: '/ws',
        SessionID: b.sessionId,
        OpenID: 'bob',
      },
    });
    expect((await handlePush(gateway, post('/ws/group/push_data', group, 'g'))).body).toEqual({
      data: '',
      err_msg: 'success',
      err_no: 0,
    });
    expect(
      (await handlePush(gateway, post('/ws/live_interaction/push_data', { 'x-tt-ws-openids': '["bob"]' }, 'l'))).body
        .err_no,
    ).toBe(0);
    expect(
      (await handlePush(gateway, post('/ws/group/leave', { ...group, 'x-tt-ws-openids': '["ann"]' }))).body.err_no,
    ).toBe(0);
    expect(gateway.groupMembers('room', '1')).toEqual([]);
    expect(a.frames).toEqual(['g']);
    expect(b.frames).toEqual(['l']);
  });

  it('answers errors with err_no, the status, and delivers nothing', async () => {
    const { gateway } = recordingGateway();
    const a = await client(gateway, 'ann');
    expect(
      await handlePush(gateway, { ...post('/ws/push_data', { 'x-tt-ws-openids': '["ann"]' }), method: 'GET' }),
    ).toMatchObject({
      status: 405,
      body: { err_no: 40500, data: null },
    });
    expect(await handlePush(gateway, post('/ws/nothing', {}))).toMatchObject({ status: 404, body: { err_no: 40400 } });
    expect(
      await handlePush(gateway, post('/ws/live_interaction/push_data', { 'x-tt-ws-sessionids': '["1"]' })),
    ).toMatchObject({
      status: 400,
      body: { err_no: 40001 },
    });
    expect((await handlePush(gateway, post('/ws/push_data', { 'x-tt-ws-openids': 'ann' }))).body.err_msg).toContain(
      'JSON array',
    );
    expect(a.frames).toEqual([]);
  });
});

describe('the gateway', () => {
  it("delivers a connection's uplinks one at a time, in order, and its disconnect after them", async () => {
    const order: string[] = [];
    const { gateway } = recordingGateway(async (call) => {
      const what =
        call.headers['x-tt-event-type'] === 'uplink' ? call.body!.toString() : call.headers['x-tt-event-type']!;
      order.push(`start ${what}`);
      await new Promise((resolve) => setTimeout(resolve, what === 'one' ? 30 : 1));
      order.push(`end ${what}`);
      return 200;
    });
    const a = await client(gateway, 'ann');
    order.length = 0;
    void gateway.uplink(a.sessionId, Buffer.from('one'), false);
    void gateway.uplink(a.sessionId, Buffer.from('two'), false);
    await gateway.closed(a.sessionId, 1000, '');
    expect(order).toEqual(['start one', 'end one', 'start two', 'end two', 'start disconnect', 'end disconnect']);
  });

  it('keeps a push made while connect runs until the client is attached, and drops a refused one', async () => {
    let gateway!: Gateway;
    ({ gateway } = recordingGateway((call) => {
      if (call.headers['x-tt-event-type'] === 'connect')
        gateway.send(call.headers['x-tt-sessionid']!, Buffer.from('welcome'), false, 'session');
      return call.headers['x-tt-openid'] === 'banned' ? 401 : 200;
    }));
    const a = await client(gateway, 'ann');
    expect(a.frames).toEqual(['welcome']);
    const refused = await gateway.open({ path: '/ws', openid: 'banned', ip: '127.0.0.1' });
    expect(refused).toMatchObject({ ok: false, answer: { status: 401 } });
    expect(gateway.sessionsOf('banned')).toEqual([]);
    expect(gateway.sessions().map((s) => s.openid)).toEqual(['ann']);
  });
});

describe('openApiInvoke of the push hosts', () => {
  it('reaches the gateway of this process for both hosts, http and https, without an access-token', async () => {
    const { gateway } = recordingGateway();
    const a = await client(gateway, 'ann');
    const seen: Record<string, unknown>[] = [];
    const push = pushRoute(() => gateway);
    // The push API's hosts, declared by an extension of a server in memory (host-table.ts).
    const stand = serveInMemory({ functions: [] }, [
      {
        name: 'gateway',
        hosts: () => ({
          'ws-push': (req, res, path) => {
            seen.push({ ...req.headers });
            push(req, res, path);
          },
        }),
      },
    ]);
    try {
      const sdk = createDySdk({ CLOUDFN_MEDIA_CLIENT_KEY: 'k', CLOUDFN_MEDIA_CLIENT_SECRET: 's' });
      const context = sdk.context({ headers: {} });
      for (const url of [
        'http://ws-push.dycloud-api.service/ws/push_data',
        'https://ws-push.dyc.ivolces.com/ws/push_data',
      ]) {
        const answer = await context.openApiInvoke({
          url,
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-TT-WS-OPENIDS': '["ann"]' },
          data: { hi: url.slice(0, 5) },
        });
        expect(answer).toEqual({ data: { failed_session_id_list: [] }, err_msg: 'success', err_no: 0 });
      }
      expect(a.frames).toEqual(['{"hi":"http:"}', '{"hi":"https"}']);
      expect(seen[0]).toMatchObject({
        'content-type': 'application/json',
        'x-tt-ws-openids': '["ann"]',
        host: 'ws-push.dycloud-api.service',
      });
      expect(seen[0]!['access-token']).toBeUndefined();
    } finally {
      await stand.close();
    }
  });

  it('says no gateway runs in this process when there is none and no CLOUDFN_SDK_OPENAPI_URL', async () => {
    const sdk = createDySdk({});
    await expect(
      sdk.context({ headers: {} }).openApiInvoke({ url: 'http://ws-push.dycloud-api.service/ws/push_data', data: {} }),
    ).rejects.toThrow(
      /no gateway runs in this process; start one: cloudfn dev serves one, and in a test openGateway\(\)/,
    );
  });
});

describe('closeReason', () => {
  it('keeps a reason within the 123 bytes a close frame holds', () => {
    expect(closeReason('short')).toBe('short');
    const long = closeReason('函数'.repeat(100));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(123);
    expect(long.endsWith('…')).toBe(true);
  });
});
