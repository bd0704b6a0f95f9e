/**
 * Where the stand-in's `openApiInvoke` sends the live room's calls in an image built with
 * `"sdk": "stand-in"`: the data-task calls to `CLOUDFN_LIVE_URL`, the WebSocket pushes to
 * `CLOUDFN_WS_PUSH_URL`; with neither set, each is refused with one line naming what to set.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDySdk } from '../../../src/platform/sdk/index.js';

const TASK = 'https://webcast.bytedance.com/api/live_data/task/start';
const PUSH = 'http://ws-push.dycloud-api.service/ws/live_interaction/push_data';
const room = { headers: { 'x-room-id': '7001' } };

let live: Server;
let liveUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  live = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ err_no: 0, data: { task_id: 't-1' } }));
  });
  await new Promise<void>((resolve) => live.listen(0, '127.0.0.1', resolve));
  liveUrl = `http://127.0.0.1:${(live.address() as AddressInfo).port}`;
});
afterAll(() => live.close());

describe('the live room calls of the stand-in', () => {
  it('sends a data-task call to CLOUDFN_LIVE_URL', async () => {
    const sdk = createDySdk({ CLOUDFN_LIVE_URL: liveUrl });
    const answer = await sdk.context(room).openApiInvoke({ url: TASK, method: 'POST', data: { roomid: '7001' } });
    expect(answer).toEqual({ err_no: 0, data: { task_id: 't-1' } });
    expect(seen).toContain('POST /api/live_data/task/start');
  });

  it('refuses a data-task call with one line naming CLOUDFN_LIVE_URL when it is unset', async () => {
    const sdk = createDySdk({});
    const failed = await sdk
      .context(room)
      .openApiInvoke({ url: TASK, method: 'POST', data: {} })
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(failed).toContain('set CLOUDFN_LIVE_URL to a live-room API');
    expect(failed).not.toContain('\n');
  });

  it('refuses a push with one line naming CLOUDFN_WS_PUSH_URL when it is unset', async () => {
    const sdk = createDySdk({});
    const failed = await sdk
      .context(room)
      .openApiInvoke({ url: PUSH, method: 'POST', headers: { 'X-TT-WS-OPENIDS': '["a"]' }, data: {} })
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(failed).toContain("set CLOUDFN_WS_PUSH_URL to a gateway's push API");
    expect(failed).not.toContain('\n');
  });
});
