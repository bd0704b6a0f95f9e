/**
 * The WebSocket gateway of `cloudfn dev`, driven by real clients over real sockets: the `ws`
 * package (headers) and, where the Node has one, the global WebSocket (query parameters, as a
 * browser must). Connect, uplink, a push kept in process, every push target, the 5-id limit, groups, disconnect,
 * refusal, binary frames, the idle timeout, reload (1012) and stop (1001).
 */
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { startDevServer as StartDevServer } from '../../src/dev/index.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { gatewayOf, reloadEvent, startProject as startFrom, until, type DevProject } from './project.js';

// The built package, as users run it: the SDK stand-in the fixture imports is loaded by Node itself.
let startDevServer: typeof StartDevServer;
beforeAll(async () => {
  ensureDist();
  ({ startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as { startDevServer: typeof StartDevServer });
});
const startProject = (options: Parameters<typeof startFrom>[0], fixture: string) =>
  startFrom(options, fixture, startDevServer);

const FIXTURE = fileURLToPath(new URL('../fixtures/ws-project', import.meta.url));
const PATH = '/websocket_callback';

interface Client {
  ws: WebSocket;
  messages: { data: string; binary: boolean }[];
  closed: Promise<{ code: number; reason: string }>;
  next(): Promise<string>;
}

function wsUrl(project: DevProject): string {
  return `${project.dev.url.replace('http', 'ws')}/__dycloud__/ws/connect/`;
}

/** Opens a `ws` client with the gateway's headers; resolves once open (rejects with the refusal's status). */
function connect(project: DevProject, headers: Record<string, string> = {}): Promise<Client> {
  const ws = new WebSocket(wsUrl(project), { headers: { 'X-TT-SERVICE-PATH': PATH, ...headers } });
  const messages: Client['messages'] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on('message', (data: Buffer, binary: boolean) => {
    messages.push({ data: binary ? data.toString('base64') : data.toString('utf8'), binary });
    waiting.shift()?.(data.toString('utf8'));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })),
  );
  return new Promise((resolve, reject) => {
    ws.on('open', () =>
      resolve({
        ws,
        messages,
        closed,
        next: () => new Promise<string>((done) => waiting.push(done)),
      }),
    );
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`refused ${res.statusCode}`), {
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
          }),
        ),
      );
    });
    ws.on('error', reject);
  });
}

let pushBase = '';
async function push(path: string, headers: Record<string, string>, body: string | Blob) {
  const res = await fetch(`${pushBase}${path}`, { method: 'POST', headers, body });
  return { status: res.status, json: (await res.json()) as { data: any; err_msg: string; err_no: number } };
}

type Call = { event: string; headers: Record<string, string>; body?: string };
async function callsOf(project: DevProject, sessionId: string): Promise<Call[]> {
  const all = (await project.get('/calls')).json as Call[];
  return all.filter((c) => c.headers['x-tt-sessionid'] === sessionId);
}

async function sessionOf(project: DevProject, openid: string): Promise<string> {
  return until(
    () =>
      gatewayOf(project.dev)
        .sessions()
        .find((s) => s.openid === openid)?.sessionId,
    5000,
    openid,
  );
}

describe('the WebSocket gateway of cloudfn dev', () => {
  let project: DevProject;
  beforeAll(async () => {
    project = await startProject({}, FIXTURE);
    pushBase = `${project.dev.url}/_cloudfn/ws-push`;
  });
  afterAll(() => project?.close());

  it('sets no variable for its push API: a function calls the push host itself (issue 51)', () => {
    expect(process.env['CLOUDFN_WS_PUSH_URL']).toBeUndefined();
  });

  it('calls connect and uplink with every header, and the function pushes back through openApiInvoke', async () => {
    const client = await connect(project, { 'X-TT-OPENID': 'ann' });
    const sessionId = await sessionOf(project, 'ann');
    const echoed = client.next();
    client.ws.send('hello');
    expect(JSON.parse(await echoed)).toEqual({ echo: 'hello' });
    const calls = await callsOf(project, sessionId);
    expect(calls.map((c) => c.event)).toEqual(['connect', 'uplink']);
    for (const call of calls) {
      expect(call.headers).toMatchObject({
        'x-tt-appid': 'tt-dev-app',
        'x-tt-envid': 'env-dev',
        'x-tt-serviceid': 'dev-service',
        'x-tt-openid': 'ann',
        'x-tt-sessionid': sessionId,
        'x-forwarded-for': '127.0.0.1',
      });
      expect(call.headers['x-tt-logid']).toMatch(/^[0-9a-f]{24}$/);
    }
    expect(calls[0]!.headers['x-tt-logid']).not.toBe(calls[1]!.headers['x-tt-logid']);
    expect(calls[1]!.body).toBe('hello');
    expect(sessionId).toMatch(/^\d+$/);
    client.ws.close();
  });

  it('delivers a push of openApiInvoke in process: no socket and no HTTP request beyond the client', async () => {
    const server = project.dev.server;
    let sockets = 0;
    let pushRequests = 0;
    const onConnection = (socket: unknown): void => {
      if (socket instanceof Socket) sockets++;
    };
    const onRequest = (req: IncomingMessage): void => {
      if ((req.url ?? '').startsWith('/_cloudfn/ws-push')) pushRequests++;
    };
    server.on('connection', onConnection);
    server.on('request', onRequest);
    try {
      const client = await connect(project, { 'X-TT-OPENID': 'in-process' });
      await sessionOf(project, 'in-process');
      const echoed = client.next();
      // The fixture answers each uplink with a push through the SDK stand-in's openApiInvoke.
      client.ws.send('no socket');
      expect(JSON.parse(await echoed)).toEqual({ echo: 'no socket' });
      // The client's own connection is the one socket; the push crossed none, and no HTTP request.
      expect(sockets).toBe(1);
      expect(pushRequests).toBe(0);
      client.ws.close();
      await client.closed;
    } finally {
      server.off('connection', onConnection);
      server.off('request', onRequest);
    }
  });

  it('acts as the dev user when the client names none, and answers pings', async () => {
    const client = await connect(project);
    expect(await sessionOf(project, 'dev-openid')).toMatch(/^\d+$/);
    const pong = new Promise<void>((resolve) => client.ws.once('pong', () => resolve()));
    client.ws.ping();
    await pong;
    client.ws.close();
    await client.closed;
  });

  it('pushes to sessions and to openids, listing the closed ones as failed', async () => {
    const a = await connect(project, { 'X-TT-OPENID': 'push-a' });
    const b = await connect(project, { 'X-TT-OPENID': 'push-b' });
    const sa = await sessionOf(project, 'push-a');
    const gotA = a.next();
    const bySession = await push('/ws/push_data', { 'X-TT-WS-SESSIONIDS': `[${sa},"999"]` }, 'to a');
    expect(bySession).toEqual({
      status: 200,
      json: { data: { failed_session_id_list: ['999'] }, err_msg: 'success', err_no: 0 },
    });
    expect(await gotA).toBe('to a');
    const gotB = b.next();
    const byOpenid = await push('/ws/push_data', { 'X-TT-WS-OPENIDS': '["push-b","nobody"]' }, 'to b');
    expect(byOpenid.json).toEqual({ data: { failed_session_id_list: ['nobody'] }, err_msg: 'success', err_no: 0 });
    expect(await gotB).toBe('to b');
    expect(a.messages.map((m) => m.data)).toEqual(['to a']);
    a.ws.close();
    b.ws.close();
  });

  it('takes 5 ids and refuses 6, delivering nothing', async () => {
    const client = await connect(project, { 'X-TT-OPENID': 'five' });
    const five = JSON.stringify(['five', 'x2', 'x3', 'x4', 'x5']);
    const ok = await push('/ws/push_data', { 'X-TT-WS-OPENIDS': five }, 'fifth');
    expect(ok.json.err_no).toBe(0);
    expect(ok.json.data.failed_session_id_list).toEqual(['x2', 'x3', 'x4', 'x5']);
    const six = JSON.stringify(['five', 'x2', 'x3', 'x4', 'x5', 'x6']);
    const refused = await push('/ws/push_data', { 'X-TT-WS-OPENIDS': six }, 'sixth');
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ err_no: 40001, data: null });
    expect(refused.json.err_msg).toContain('X-TT-WS-OPENIDS lists 6 ids, at most 5');
    const both = await push('/ws/push_data', { 'X-TT-WS-OPENIDS': '["a"]', 'X-TT-WS-SESSIONIDS': '["1"]' }, 'x');
    expect(both.json.err_msg).toContain('not both');
    const none = await push('/ws/push_data', {}, 'x');
    expect(none.json.err_msg).toContain('is required');
    await until(() => (client.messages.length === 1 ? true : undefined));
    expect(client.messages.map((m) => m.data)).toEqual(['fifth']);
    client.ws.close();
  });

  it('joins groups (from the function, and over HTTP), pushes to a group and leaves it', async () => {
    const a = await connect(project, { 'X-TT-OPENID': 'group-a' });
    const b = await connect(project, { 'X-TT-OPENID': 'group-b' });
    const c = await connect(project, { 'X-TT-OPENID': 'group-c' });
    a.ws.send('join:blue');
    await until(() => (gatewayOf(project.dev).groupMembers('room', 'blue').length === 1 ? true : undefined));
    const join = await push(
      '/ws/group/join',
      { 'X-TT-WS-OPENIDS': '["group-b"]', 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': 'blue' },
      '',
    );
    expect(join.json).toEqual({ data: { failed_session_id_list: [] }, err_msg: 'success', err_no: 0 });
    const gotA = a.next();
    const gotB = b.next();
    const sent = await push(
      '/ws/group/push_data',
      { 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': 'blue' },
      'blue team',
    );
    expect(sent.json).toEqual({ data: '', err_msg: 'success', err_no: 0 });
    expect([await gotA, await gotB]).toEqual(['blue team', 'blue team']);
    const left = await push(
      '/ws/group/leave',
      { 'X-TT-WS-OPENIDS': '["group-a"]', 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': 'blue' },
      '',
    );
    expect(left.json.err_no).toBe(0);
    const gotB2 = b.next();
    await push('/ws/group/push_data', { 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': 'blue' }, 'again');
    expect(await gotB2).toBe('again');
    expect(a.messages.map((m) => m.data)).not.toContain('again');
    expect(c.messages).toEqual([]);
    const missing = await push('/ws/group/push_data', { 'X-TT-WS-GROUPNAME': 'room' }, 'x');
    expect(missing.json).toMatchObject({ err_no: 40001 });
    for (const client of [a, b, c]) client.ws.close();
  });

  it('carries binary frames both ways', async () => {
    const client = await connect(project, { 'X-TT-OPENID': 'bytes' });
    const echoed = client.next();
    client.ws.send(Buffer.from([1, 2, 3, 255]));
    expect(JSON.parse(await echoed)).toEqual({ echo: 'bytes:4' });
    const sessionId = await sessionOf(project, 'bytes');
    const binary = new Promise<{ data: Buffer; isBinary: boolean }>((resolve) =>
      client.ws.once('message', (data: Buffer, isBinary: boolean) => resolve({ data, isBinary })),
    );
    await push(
      '/ws/push_data',
      { 'X-TT-WS-SESSIONIDS': `["${sessionId}"]`, 'content-type': 'application/octet-stream' },
      new Blob([new Uint8Array([0, 254])]),
    );
    expect(await binary).toEqual({ data: Buffer.from([0, 254]), isBinary: true });
    client.ws.close();
  });

  it('calls disconnect when the client closes, with the same session id', async () => {
    const client = await connect(project, { 'X-TT-OPENID': 'leaver' });
    const sessionId = await sessionOf(project, 'leaver');
    client.ws.close(1000, 'bye');
    await client.closed;
    const calls = await until(async () => {
      const found = await callsOf(project, sessionId);
      return found.some((c) => c.event === 'disconnect') ? found : undefined;
    });
    expect(calls.map((c) => c.event)).toEqual(['connect', 'disconnect']);
    expect(calls[1]!.headers['x-tt-openid']).toBe('leaver');
    const after = await push('/ws/push_data', { 'X-TT-WS-SESSIONIDS': `[${sessionId}]` }, 'late');
    expect(after.json.data.failed_session_id_list).toEqual([sessionId]);
  });

  it("refuses the upgrade with the function's status and body when connect is not 2xx", async () => {
    const refused = await connect(project, { 'X-TT-OPENID': 'banned' }).catch(
      (e: { status: number; body: string }) => e,
    );
    expect(refused).toMatchObject({ status: 403 });
    expect(JSON.parse((refused as { body: string }).body)).toEqual({ err_no: 403, err_msg: 'banned from this room' });
    const noPath = await connect(project, { 'X-TT-SERVICE-PATH': '' }).catch(
      (e: { status: number; body: string }) => e,
    );
    expect(noPath).toMatchObject({ status: 400 });
    expect((noPath as { body: string }).body).toContain('X-TT-SERVICE-PATH');
    const noFunction = await connect(project, { 'X-TT-SERVICE-PATH': '/no_such_function' }).catch(
      (e: { status: number }) => e,
    );
    expect(noFunction).toMatchObject({ status: 404 });
    const badUser = await new Promise<number | undefined>((resolve) => {
      const ws = new WebSocket(`${wsUrl(project)}?service_path=${PATH}&openid=${encodeURIComponent('用户')}`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('open', () => resolve(undefined));
    });
    expect(badUser).toBe(400);
    const reused = await connect(project, { 'X-TT-WS-CONN-ID': '4392960514' });
    const again = await connect(project, { 'X-TT-WS-CONN-ID': '4392960514' }).catch((e: { status: number }) => e);
    expect(again).toMatchObject({ status: 400 });
    reused.ws.close();
  });

  it.skipIf(typeof globalThis.WebSocket !== 'function')(
    "takes the values as query parameters from a client that cannot set headers (Node's global WebSocket)",
    async () => {
      const url = `${wsUrl(project)}?service_path=${encodeURIComponent(PATH)}&openid=browser`;
      const socket = new globalThis.WebSocket(url);
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      const echoed = new Promise<string>((resolve) => {
        socket.onmessage = (event) => resolve(String(event.data));
      });
      socket.send('from a browser');
      expect(JSON.parse(await echoed)).toEqual({ echo: 'from a browser' });
      expect(
        gatewayOf(project.dev)
          .sessions()
          .some((s) => s.openid === 'browser'),
      ).toBe(true);
      const refused = new WebSocket(`${wsUrl(project)}?service_path=${PATH}&openid=banned`);
      const closed = new Promise<number>((resolve) => refused.on('close', (code: number) => resolve(code)));
      refused.on('error', () => undefined);
      // A browser cannot read the refusal's status: it sees an error and never an open (Node 22's
      // undici fires no close after a failed handshake; browsers fire close 1006 as well).
      const browserRefused = new globalThis.WebSocket(`${wsUrl(project)}?service_path=${PATH}&openid=banned`);
      let opened = false;
      browserRefused.onopen = () => {
        opened = true;
      };
      await new Promise((resolve) => {
        browserRefused.onerror = resolve;
      });
      expect(opened).toBe(false);
      expect(await closed).toBe(1006);
      socket.close();
    },
  );

  it('closes the connections of a rebuilt function with 1012', async () => {
    const client = await connect(project, { 'X-TT-OPENID': 'reload' });
    const reloaded = project.next(reloadEvent('reloaded', 'websocket_callback'), 15_000);
    const source = await (await import('node:fs/promises')).readFile(
      `${project.root}/functions/websocket_callback.ts`,
      'utf8',
    );
    project.write('functions/websocket_callback.ts', `${source}\n// saved again\n`);
    await reloaded;
    const closed = await client.closed;
    expect(closed.code).toBe(1012);
    expect(closed.reason).toContain('websocket_callback changed');
    // A removed function's connections close the same way (this one is the last test to use /calls).
    const onCalls = await connect(project, { 'X-TT-SERVICE-PATH': '/calls', 'X-TT-OPENID': 'removed' });
    const removed = project.next(reloadEvent('removed', 'calls'), 15_000);
    project.remove('functions/calls.ts');
    await removed;
    expect(await onCalls.closed).toEqual({ code: 1012, reason: 'calls changed: reconnect to run the new code' });
  });
});

describe('the gateway of a dev server that stops, or with an idle timeout', () => {
  it('closes idle connections with 4008, and every connection with 1001 when it stops', async () => {
    const project = await startProject({ wsIdleTimeoutMs: 1000 }, FIXTURE);
    try {
      const idle = await connect(project, { 'X-TT-OPENID': 'idle' });
      const busy = await connect(project, { 'X-TT-OPENID': 'busy' });
      const keepAlive = setInterval(() => busy.ws.send('still here'), 100);
      const closed = await idle.closed;
      expect(closed).toEqual({ code: 4008, reason: 'idle for 1000 ms' });
      clearInterval(keepAlive);
      expect(busy.ws.readyState).toBe(WebSocket.OPEN);
      const stopping = await connect(project, { 'X-TT-OPENID': 'stopping' });
      await project.dev.close();
      expect((await stopping.closed).code).toBe(1001);
    } finally {
      await project.close();
    }
  });
});
