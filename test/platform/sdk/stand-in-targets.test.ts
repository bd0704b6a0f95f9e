/**
 * Where the stand-in's `openApiInvoke` sends the live room's calls in an image built with
 * `"sdk": "stand-in"`: the data-task calls and the WebSocket pushes to the stand-ins of this
 * process (the host table); with none running, each is refused with one line naming what to start.
 */
import { describe, expect, it } from 'vitest';
import { serveInMemory } from '../../../runtime/serve/in-memory.js';
import { createDySdk } from '../../../src/platform/sdk/index.js';

const TASK = 'https://webcast.bytedance.com/api/live_data/task/start';
const PUSH = 'http://ws-push.dycloud-api.service/ws/live_interaction/push_data';
const room = { headers: { 'x-room-id': '7001' } };

describe('the live room calls of the stand-in', () => {
  it('sends a data-task call to the live rooms of this process, in memory', async () => {
    const seen: string[] = [];
    const stand = serveInMemory({ functions: [] }, [
      {
        name: 'live',
        hosts: () => ({
          webcast: (req, res) => {
            seen.push(`${req.method} ${req.url}`);
            res.setHeader('content-type', 'application/json');
            res.end(JSON.stringify({ err_no: 0, data: { task_id: 't-1' } }));
          },
        }),
      },
    ]);
    try {
      const sdk = createDySdk({});
      const answer = await sdk.context(room).openApiInvoke({ url: TASK, method: 'POST', data: { roomid: '7001' } });
      expect(answer).toEqual({ err_no: 0, data: { task_id: 't-1' } });
      expect(seen).toContain('POST /api/live_data/task/start');
    } finally {
      await stand.close();
    }
  });

  it('refuses a data-task call with one line naming what to start when no live rooms run', async () => {
    const sdk = createDySdk({});
    const failed = await sdk
      .context(room)
      .openApiInvoke({ url: TASK, method: 'POST', data: {} })
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(failed).toContain('no live-room simulator runs in this process');
    expect(failed).toContain('startLiveRooms()');
    expect(failed).not.toContain('\n');
  });

  it('refuses a push with one line naming what to start when no gateway runs', async () => {
    const sdk = createDySdk({});
    const failed = await sdk
      .context(room)
      .openApiInvoke({ url: PUSH, method: 'POST', headers: { 'X-TT-WS-OPENIDS': '["a"]' }, data: {} })
      .then(
        () => undefined,
        (error: Error) => error.message,
      );
    expect(failed).toContain('no gateway runs in this process');
    expect(failed).toContain('openGateway()');
    expect(failed).not.toContain('\n');
  });
});
