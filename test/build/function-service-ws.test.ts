/**
 * A `websocket_callback` built with `cloudfn build --target function-service` answers the local
 * gateway's connect, uplink and disconnect calls under the real Node 14, through the imitation
 * of the platform's invocation: the very requests `Gateway` sends (every header, a text and a
 * binary uplink) are handed to the built file, and a refusing connect refuses the client.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFunctionService,
  findCheckNode,
  type FunctionServiceBuildResult,
  ImitationRunner,
} from '../../src/build/function-service/index.js';
import { Gateway, type GatewayActivity } from '../../src/platform/gateway/gateway.js';
import { tempProject } from '../testing/project.js';

const node = findCheckNode(process.cwd());
if (!node.platformVersion && process.env.CI === 'true')
  throw new Error('Node 14 is missing under CI: run node test/setup/node14.mjs');

const project = tempProject({
  'functions/websocket_callback.ts': `import type { Handler } from 'cloudfn';
const callback: Handler = (params, service) => {
  const h = service.headers;
  const event = h['x-tt-event-type'];
  if (event === 'connect') {
    if (h['x-tt-openid'] === 'banned') {
      service.status(403);
      return { err_no: 403, err_msg: 'banned' };
    }
    return { connected: h['x-tt-sessionid'] };
  }
  if (event === 'disconnect') return { disconnected: h['x-tt-sessionid'] };
  return {
    got: typeof params === 'string' ? params : Buffer.isBuffer(params) ? 'bytes:' + params.length : params,
    method: service.httpMethod,
    headers: {
      appid: h['x-tt-appid'], envid: h['x-tt-envid'], serviceid: h['x-tt-serviceid'], openid: h['x-tt-openid'],
      session: h['x-tt-sessionid'], ip: h['x-forwarded-for'], logid: h['x-tt-logid'],
    },
  };
};
export default callback;`,
});

let result: FunctionServiceBuildResult;
const runner = new ImitationRunner(node);

beforeAll(async () => {
  result = await buildFunctionService(project.root);
}, 60_000);
afterAll(() => {
  runner.close();
  project.remove();
});

describe.skipIf(!node.platformVersion)('a websocket_callback under Node 14, called by the gateway', () => {
  it('answers connect, a text and a binary uplink, and disconnect; a refusing connect refuses', async () => {
    const file = join(result.outdir, 'websocket_callback.js');
    const nodes: string[] = [];
    const gateway = new Gateway({
      identity: { appid: 'tt-app', envId: 'env-1', serviceId: 'svc-1' },
      call: async (call) => {
        const out = await runner.run(file, [
          {
            method: call.method,
            url: call.path,
            headers: call.headers,
            ...(call.body === undefined ? {} : { bodyBase64: call.body.toString('base64') }),
          },
        ]);
        nodes.push(out.node ?? '');
        const answer = out.answers![0]!;
        return { status: answer.status, headers: answer.headers, body: Buffer.from(answer.body) };
      },
    });
    const activity: GatewayActivity[] = [];
    gateway.observe((entry) => activity.push(entry));

    const opened = await gateway.open({ path: '/websocket_callback', openid: 'ann', ip: '10.0.0.7' });
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(JSON.parse(opened.answer.body.toString())).toEqual({ connected: opened.sessionId });
    gateway.attach(opened.sessionId, { send: () => undefined, close: () => undefined });

    const text = await gateway.uplink(opened.sessionId, Buffer.from('hello'), false);
    const echoed = JSON.parse(text!.body.toString()) as {
      got: string;
      method: string;
      headers: Record<string, string>;
    };
    expect(echoed).toMatchObject({
      got: 'hello',
      method: 'POST',
      headers: {
        appid: 'tt-app',
        envid: 'env-1',
        serviceid: 'svc-1',
        openid: 'ann',
        session: opened.sessionId,
        ip: '10.0.0.7',
      },
    });
    expect(echoed.headers.logid).toMatch(/^[0-9a-f]{24}$/);
    const bytes = await gateway.uplink(opened.sessionId, Buffer.from([0, 1, 2]), true);
    expect(JSON.parse(bytes!.body.toString())).toMatchObject({ got: 'bytes:3' });

    await gateway.closed(opened.sessionId, 1000, 'bye');
    expect(activity.at(-1)).toMatchObject({ type: 'disconnect', status: 200, code: 1000 });

    const refused = await gateway.open({ path: '/websocket_callback', openid: 'banned', ip: '10.0.0.8' });
    expect(refused).toMatchObject({ ok: false, answer: { status: 403 } });
    expect(nodes.every((version) => version.startsWith('v14.'))).toBe(true);
  }, 60_000);
});
