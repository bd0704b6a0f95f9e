/**
 * The live-room simulator's parts on their own: the task calls' answers and refusals (the
 * platform's envelope), the push signature against the platform docs' own example, filling
 * partial messages, and where `openApiInvoke` sends the live-data calls.
 */
import { serveInMemory } from '../../runtime/serve/in-memory.js';
import { describe, expect, it } from 'vitest';
import { fillMessages, MsgIds } from '../../src/platform/live/messages.js';
import { liveSignature, pushHeaders } from '../../src/platform/live/push-headers.js';
import { LiveRooms } from '../../src/platform/live/rooms.js';
import { answerTaskCall } from '../../src/platform/live/task-api.js';
import { OpenApiInvoker } from '../../src/platform/sdk/open-api.js';
import { readSdkOptions } from '../../src/platform/sdk/sdk-options.js';

function rooms(): LiveRooms {
  return new LiveRooms({
    config: () => ({ path: '/cb' }),
    defaultAnchor: 'dev',
    deliver: async () => ({ status: 200, logid: 'l', body: '' }),
  });
}
const call = (r: LiveRooms, method: string, path: string, body?: unknown, query = '') =>
  answerTaskCall(r, { method, path, query: new URLSearchParams(query), body });

describe('the task calls', () => {
  it('start, get and stop answer in the platform envelope', () => {
    const r = rooms();
    const args = { roomid: 7001, appid: 'tt1', msg_type: 'live_gift' };
    const started = call(r, 'POST', '/api/live_data/task/start', args)!;
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      err_no: 0,
      err_msg: 'success',
      logid: expect.any(String),
      data: { task_id: expect.any(String) },
    });
    expect(
      call(r, 'GET', '/api/live_data/task/get', undefined, 'roomid=7001&appid=tt1&msg_type=live_gift')!.body.data,
    ).toEqual({ status: 3 });
    expect(call(r, 'POST', '/api/live_data/task/stop', args)!.body).toMatchObject({ err_no: 0, data: {} });
    expect(call(r, 'POST', '/api/live_data/task/stop', args)!.body).toMatchObject({ err_no: 0 });
    expect(call(r, 'POST', '/api/live_data/task/get', args)!.body.data).toEqual({ status: 2 });
    expect(
      call(r, 'GET', '/api/live_data/task/get', undefined, 'roomid=1&appid=tt1&msg_type=live_like')!.body.data,
    ).toEqual({ status: 1 });
    expect(call(r, 'POST', '/api/other', {})).toBeUndefined();
  });

  it.each([
    [{ appid: 'a', msg_type: 'live_like' }, 'live_data task: roomid must be a non-empty string, got undefined'],
    [{ roomid: '1', appid: 'a', msg_type: 'live_share' }, 'msg_type "live_share" is not a live-room message type'],
    [[1], 'live_data task: the body must be a JSON object, got [1]'],
  ])('refuses %j with err_no 40001 and data null', (body, message) => {
    const answer = call(rooms(), 'POST', '/api/live_data/task/start', body)!;
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ err_no: 40001, data: null });
    expect(answer.body.err_msg).toContain(message);
  });

  it('refuses the wrong method', () => {
    const answer = call(rooms(), 'GET', '/api/live_data/task/start', undefined, 'roomid=1&appid=a&msg_type=live_like')!;
    expect(answer.body.err_msg).toContain('/api/live_data/task/start takes POST, got GET');
  });
});

describe('the push', () => {
  it("signs as the platform's documented example does", () => {
    // The platform page's own example: sorted headers, the body, the secret, MD5, base64.
    const headers = { 'x-nonce-str': '123456', 'x-timestamp': '456789', 'x-roomid': '268', 'x-msg-type': 'user_group' };
    expect(liveSignature(headers, 'abc123你好', '123abc')).toBe('GAkalGmhzqlUGQO/TgvMug==');
  });

  it('has the platform headers', () => {
    const headers = pushHeaders({
      roomid: '7',
      msgType: 'live_like',
      anchorOpenid: 'an',
      body: '[]',
      secret: 's',
      now: 5,
      nonce: 'n',
    });
    expect(headers).toEqual({
      'x-msg-type': 'live_like',
      'x-nonce-str': 'n',
      'x-roomid': '7',
      'x-timestamp': '5',
      'x-signature': liveSignature(
        { 'x-msg-type': 'live_like', 'x-nonce-str': 'n', 'x-roomid': '7', 'x-timestamp': '5' },
        '[]',
        's',
      ),
      'x-anchor-openid': 'an',
      'content-type': 'application/json',
    });
  });

  it('fills partial messages, each with its own msg_id', () => {
    const ids = new MsgIds();
    const [gift] = fillMessages('live_gift', { gift_num: 4 }, { ids, now: 9 });
    expect(gift).toEqual({
      msg_id: expect.any(String),
      sec_openid: 'viewer-1',
      avatar_url: expect.stringContaining('viewer-1'),
      nickname: 'viewer-1',
      timestamp: 9,
      sec_gift_id: 'dev-gift',
      gift_num: 4,
      gift_value: 4,
      test: false,
      audience_sec_open_id: '',
    });
    const many = fillMessages('live_comment', [{}, {}, { msg_id: 'mine' }], { ids });
    expect(new Set(many.map((m) => m.msg_id)).size).toBe(3);
    expect(many[2]!.msg_id).toBe('mine');
    expect(() => fillMessages('live_comment', [{ msg_id: 'a' }, { msg_id: 'a' }], { ids })).toThrow(
      'live_comment message 1: msg_id "a" is given twice',
    );
  });

  it('refuses to push to a room without a running task, and without a path', async () => {
    const r = rooms();
    await expect(r.send('1', 'live_like', {})).rejects.toMatchObject({ code: 'PLATFORM_LIVE_NO_TASK', status: 409 });
    const noPath = new LiveRooms({
      config: () => undefined,
      defaultAnchor: 'dev',
      deliver: async () => ({ status: 200, logid: '', body: '' }),
    });
    noPath.start('1', 'a', 'live_like');
    await expect(noPath.send('1', 'live_like', {})).rejects.toMatchObject({ code: 'PLATFORM_LIVE_NO_PATH' });
  });
});

describe('openApiInvoke of the live-data calls', () => {
  it('goes to the live rooms of this process, from either host, with the Host kept', async () => {
    const seen: string[] = [];
    const stand = serveInMemory({ functions: [] }, [
      {
        name: 'live',
        hosts: () => ({
          webcast: (req, res, path) => {
            seen.push(`${req.method} ${req.headers.host} ${path}`);
            res.end('{"err_no":0}');
          },
        }),
      },
    ]);
    const options = readSdkOptions({});
    const invoker = new OpenApiInvoker();
    const data = { roomid: '1', appid: 'a', msg_type: 'live_like' };
    try {
      expect(
        await invoker.invoke(options, {
          url: 'https://webcast.bytedance.com/api/live_data/task/start',
          method: 'POST',
          data,
        }),
      ).toEqual({ err_no: 0 });
      await invoker.invoke(options, {
        url: 'http://webcast-bytedance-com.openapi.dyc.ivolces.com/api/live_data/task/stop',
        data,
      });
    } finally {
      await stand.close();
    }
    expect(seen).toEqual([
      'POST webcast.bytedance.com /api/live_data/task/start',
      'POST webcast-bytedance-com.openapi.dyc.ivolces.com /api/live_data/task/stop',
    ]);
    // Without the simulator, the call names the missing target.
    await expect(
      invoker.invoke(readSdkOptions({}), { url: 'https://webcast.bytedance.com/api/live_data/task/start', data }),
    ).rejects.toMatchObject({ code: 'PLATFORM_SDK_NO_OPENAPI_TARGET' });
  });
});
