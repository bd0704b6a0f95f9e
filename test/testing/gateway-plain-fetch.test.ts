/**
 * `openGateway` is `serve()` with the gateway's extension (issue 51): a real server on a
 * loopback port, so a function's plain `fetch` of the push host (the intranet hook sends fetch
 * over loopback) lands on the simulated clients, as under `cloudfn dev`. A server that never
 * listened refused that fetch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Service } from '../../runtime/types.js';
import { openGateway, type TestGateway } from '../../src/testing/gateway.js';

/** Pushes each uplink back to its sender with a plain fetch of the push API's host. */
async function callback(params: unknown, service: Service) {
  if (service.headers['x-tt-event-type'] !== 'uplink') return { ok: true };
  const res = await fetch('http://ws-push.dyc.ivolces.com/ws/push_data', {
    method: 'POST',
    headers: { 'X-TT-WS-SESSIONIDS': JSON.stringify([String(service.headers['x-tt-sessionid'])]) },
    body: `fetched:${String(params)}`,
  });
  return { status: res.status, body: await res.json() };
}

let open: TestGateway | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('openGateway on serve()', () => {
  it("lands a function's plain fetch of the push host on the client", async () => {
    const gateway = (open = await openGateway({ name: 'ws', handler: callback }));
    const ann = await gateway.connect({ path: '/ws', openid: 'ann' });
    const answer = await ann.send('hi');
    expect(answer.json).toMatchObject({ status: 200, body: { err_no: 0 } });
    expect((await ann.next()).text).toBe('fetched:hi');
    expect(gateway.pushes).toHaveLength(1);
  });
});
