/**
 * The WebSocket gateway under the built `cloudfn start`, driven by real `ws` clients over real
 * sockets: connect, uplink and disconnect reach the function with the platform's headers (a
 * client's X-TT-OPENID claims nothing without trustGatewayHeaders), a plain `fetch` of the push
 * host from inside a function reaches the socket, `--workers 2` routes a push to a socket the
 * other worker holds and reports a dead one failed, a worker killed leaves one disconnect per
 * orphan, SIGTERM closes sockets with 1001 after the uplink in flight, and with the gateway off
 * a push answers PLATFORM_WS_GATEWAY_OFF naming the config key.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { until } from '../testing/until.js';

const CLI = join(REPO, 'dist/src/cli/index.js');

/**
 * The game function: every call is appended to CALLS_FILE (shared by the workers); an uplink
 * is a command, and every push goes by plain fetch to the platform's push host.
 */
const GAME = `
import { appendFileSync } from 'node:fs';
const push = async (path, headers, body) => {
  const res = await fetch('http://ws-push.dyc.ivolces.com' + path, { method: 'POST', headers, body });
  return res.json();
};
export default async function (params, service) {
  const h = service.headers;
  const event = String(h['x-tt-event-type'] ?? '');
  const self = String(h['x-tt-sessionid'] ?? '');
  const text = typeof params === 'string' ? params : undefined;
  appendFileSync(process.env.CALLS_FILE, JSON.stringify({ event, self, pid: process.pid, headers: { ...h }, text }) + '\\n');
  if (event === 'connect') {
    // The connect function authenticates its client itself: a token in the service path's query.
    if (params.token !== 'good') { service.status(401); return { err_msg: 'bad token' }; }
    return { ok: true };
  }
  if (event !== 'uplink' || text === undefined) return { ok: true };
  const [command, a = '', b = ''] = text.split(' ');
  const toSelf = (body) => push('/ws/push_data', { 'X-TT-WS-SESSIONIDS': JSON.stringify([self]) }, body);
  if (command === 'whoami') return toSelf('pid ' + process.pid + ' ' + self);
  if (command === 'push') {
    const answer = await push('/ws/push_data', { 'X-TT-WS-SESSIONIDS': JSON.stringify(a.split(',')) }, b);
    return toSelf('result ' + JSON.stringify(answer));
  }
  if (command === 'join') {
    const answer = await push('/ws/group/join', { 'X-TT-WS-SESSIONIDS': JSON.stringify([self]), 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': a }, '');
    return toSelf('joined ' + JSON.stringify(answer));
  }
  if (command === 'gpush') {
    await push('/ws/group/push_data', { 'X-TT-WS-GROUPNAME': 'room', 'X-TT-WS-GROUPVALUE': a }, b);
    return { ok: true };
  }
  if (command === 'query') {
    const answer = await push('/ws/query_info', { 'X-TT-WS-SESSIONIDS': JSON.stringify([a]) }, '');
    return toSelf('query ' + JSON.stringify(answer));
  }
  if (command === 'slow') {
    await new Promise((resolve) => setTimeout(resolve, Number(a)));
    return toSelf('slow done');
  }
  return { ok: true };
}
`;

/** An HTTP function that pushes: what a function called from outside (a timer, an HTTP call) does. */
const PUSH_FN = `
import { dySDK } from '@open-dy/node-server-sdk';
import http from 'node:http';
export default async function (params, service) {
  const ids = JSON.stringify([params.to ?? '1']);
  if (params.via === 'connid') {
    const res = await fetch('http://ws-push.dyc.ivolces.com/ws/get_conn_id', { method: 'POST',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service_id: 's', env_id: 'e', token: 't' }) });
    return { pid: process.pid, ...JSON.parse((await res.json()).data) };
  }
  if (params.via === 'flood') {
    // Pushes of 256 KiB to a client that reads nothing: the index of the first one failed.
    const body = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 200; i++) {
      const res = await fetch('http://ws-push.dyc.ivolces.com/ws/push_data', { method: 'POST', headers: { 'X-TT-WS-SESSIONIDS': ids }, body });
      const answer = await res.json();
      if (answer.data.failed_session_id_list.length > 0) return { failedAt: i, answer };
    }
    return { failedAt: -1 };
  }
  if (params.via === 'openid') {
    const res = await fetch('http://ws-push.dyc.ivolces.com/ws/push_data', { method: 'POST',
      headers: { 'X-TT-WS-OPENIDS': JSON.stringify([params.to]) }, body: 'to a user' });
    return res.json();
  }
  if (params.via === 'http')
    return new Promise((resolve, reject) => {
      const req = http.request('http://ws-push.dycloud-api.service/ws/push_data',
        { method: 'POST', headers: { 'X-TT-WS-SESSIONIDS': ids } }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(body) }));
        });
      req.on('error', reject);
      req.end('by http.request');
    });
  if (params.via === 'sdk') {
    try {
      const answer = await dySDK.context(service).openApiInvoke({
        url: 'http://ws-push.dyc.ivolces.com/ws/push_data', method: 'POST',
        headers: { 'X-TT-WS-SESSIONIDS': ids }, data: 'by the SDK' });
      return { answer };
    } catch (error) {
      return { error: String(error && error.message) };
    }
  }
  const res = await fetch('http://ws-push.dycloud-api.service/ws/push_data', {
    method: 'POST', headers: { 'X-TT-WS-SESSIONIDS': ids }, body: 'x' });
  return { status: res.status, body: await res.json() };
}
`;

interface Server {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** What it wrote to stdout (its JSON log lines). */
  output: () => string;
  calls: () => { event: string; self: string; pid: number; headers: Record<string, string>; text?: string }[];
}

let root = '';
const servers: Server[] = [];

function project(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(root, 'p-'));
  mkdirSync(join(dir, 'functions'));
  writeFileSync(join(dir, 'functions', 'game.mjs'), GAME);
  writeFileSync(join(dir, 'functions', 'pushfn.mjs'), PUSH_FN);
  writeFileSync(join(dir, 'cloudfn.config.json'), JSON.stringify(config));
  return dir;
}

function start(dir: string, args: string[] = [], env: Record<string, string> = {}): Promise<Server> {
  const callsFile = join(dir, 'calls.jsonl');
  const child = spawn(process.execPath, [CLI, 'start', dir, '--port', '0', '--host', '127.0.0.1', ...args], {
    env: { ...process.env, CALLS_FILE: callsFile, CLOUDFN_DRAIN_DELAY: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1];
      const ready = args.includes('--workers') ? (out.match(/"url":"/g)?.length ?? 0) >= 2 : url !== undefined;
      if (url !== undefined && ready) {
        const server: Server = {
          child,
          url: url.replace('localhost', '127.0.0.1'),
          exited,
          output: () => out,
          calls: () =>
            existsSync(callsFile)
              ? readFileSync(callsFile, 'utf8')
                  .split('\n')
                  .filter(Boolean)
                  .map((line) => JSON.parse(line))
              : [],
        };
        servers.push(server);
        resolve(server);
      }
    });
    void exited.then((code) => reject(new Error(`cloudfn start exited ${code}: ${err}${out}`)));
  });
}

interface Client {
  ws: WebSocket;
  frames: string[];
  closed: Promise<{ code: number; reason: string }>;
  /** The first frame from `from` on that starts with `prefix`. */
  frame(prefix: string, from?: number): Promise<string>;
}

function connect(server: Server, headers: Record<string, string> = {}, token = 'good', query = ''): Promise<Client> {
  const path = encodeURIComponent(`/game?token=${token}`);
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/__dycloud__/ws/connect/?service_path=${path}${query}`, {
    headers,
  });
  const frames: string[] = [];
  ws.on('message', (data: Buffer) => frames.push(data.toString('utf8')));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })),
  );
  const frame = (prefix: string, from = 0) =>
    until(() => frames.slice(from).find((f) => f.startsWith(prefix)), 15_000, `a frame starting ${prefix}`);
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, frames, closed, frame }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () =>
        reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode, body })),
      );
    });
    ws.on('error', reject);
  });
}

/** The pid and session id of a client's worker, asked through the function. */
async function whoami(client: Client): Promise<{ pid: number; sessionId: string }> {
  const from = client.frames.length;
  client.ws.send('whoami');
  const [, pid, sessionId] = (await client.frame('pid ', from)).split(' ');
  return { pid: Number(pid), sessionId: sessionId! };
}

beforeAll(() => {
  ensureDist();
  root = mkdtempSync(join(tmpdir(), 'cloudfn-start-gateway-'));
});
afterEach(() => {
  for (const server of servers.splice(0)) server.child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('cloudfn start with gateway: true', () => {
  it('calls connect, uplink and disconnect with the platform headers; a push by fetch reaches the socket', async () => {
    const server = await start(project({ gateway: true }));
    const client = await connect(server, { 'X-TT-OPENID': 'spoofed', 'X-Room-ID': '7' });
    const { sessionId } = await whoami(client);
    expect(sessionId).toMatch(/^\d+$/);
    const connectCall = server.calls().find((c) => c.event === 'connect')!;
    expect(connectCall.self).toBe(sessionId);
    expect(connectCall.headers).toMatchObject({
      'x-tt-event-type': 'connect',
      'x-tt-sessionid': sessionId,
      'x-tt-appid': expect.any(String),
      'x-tt-envid': expect.any(String),
      'x-tt-serviceid': expect.any(String),
      'x-forwarded-for': '127.0.0.1',
      'x-tt-logid': expect.any(String),
    });
    // Without trustGatewayHeaders a client claims no user and no room.
    expect(connectCall.headers['x-tt-openid']).toBeUndefined();
    expect(connectCall.headers['x-room-id']).toBeUndefined();
    expect(server.calls().find((c) => c.event === 'uplink')).toMatchObject({ text: 'whoami' });

    const from = client.frames.length;
    client.ws.send(`push ${sessionId},404 hello`);
    expect(await client.frame('hello', from)).toBe('hello');
    const result = JSON.parse((await client.frame('result ', from)).slice('result '.length));
    expect(result).toEqual({ data: { failed_session_id_list: ['404'] }, err_msg: 'success', err_no: 0 });

    // From a function called over HTTP: through the SDK stand-in, and by http.request.
    for (const via of ['sdk', 'http']) {
      const answer = (await (await fetch(`${server.url}/pushfn?via=${via}&to=${sessionId}`)).json()) as object;
      expect(JSON.stringify(answer)).toContain('"failed_session_id_list":[]');
    }
    expect(await client.frame('by the SDK', from)).toBe('by the SDK');
    expect(await client.frame('by http.request', from)).toBe('by http.request');

    client.ws.close(1000, 'bye');
    await until(() => server.calls().find((c) => c.event === 'disconnect'), 15_000, 'the disconnect call');
  });

  it('takes the user and address from the upgrade with trustGatewayHeaders, so a push by openid reaches it', async () => {
    const server = await start(project({ gateway: true }), [], { CLOUDFN_TRUST_GATEWAY_HEADERS: '1' });
    const client = await connect(server, { 'X-TT-OPENID': 'ann', 'X-Forwarded-For': '203.0.113.7, 10.0.0.1' });
    await whoami(client);
    expect(server.calls().find((c) => c.event === 'connect')?.headers).toMatchObject({
      'x-tt-openid': 'ann',
      'x-forwarded-for': '203.0.113.7',
    });
    const answer = await (await fetch(`${server.url}/pushfn?via=openid&to=ann`)).json();
    expect(answer).toEqual({ data: { failed_session_id_list: [] }, err_msg: 'success', err_no: 0 });
    expect(await client.frame('to a user')).toBe('to a user');
  });

  it('cuts a client that reads nothing with 4009 past CLOUDFN_WS_MAX_QUEUED, and fails its pushes', async () => {
    const server = await start(project({ gateway: true }), [], { CLOUDFN_WS_MAX_QUEUED: '65536' });
    // A client that completes the handshake, then never reads again.
    const socket = createConnection(Number(new URL(server.url).port), '127.0.0.1');
    socket.write(
      [
        'GET /__dycloud__/ws/connect/ HTTP/1.1',
        'Host: 127.0.0.1',
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        'X-TT-SERVICE-PATH: /game?token=good',
        '',
        '',
      ].join('\r\n'),
    );
    const connected = await until(() => server.calls().find((c) => c.event === 'connect'), 15_000, 'connect');
    socket.pause();
    const flood = (await (await fetch(`${server.url}/pushfn?via=flood&to=${connected.self}`)).json()) as {
      failedAt: number;
    };
    // Failed once what waits passed the bound, well before all 200 (50 MiB) were sent.
    expect(flood.failedAt).toBeGreaterThan(0);
    expect(flood.failedAt).toBeLessThan(200);
    await until(() => server.calls().find((c) => c.event === 'disconnect'), 15_000, 'the disconnect call');
    expect(server.output()).toContain(`ws ${connected.self} closed (4009)`);
    socket.destroy();
  });

  it('refuses a client its connect function refuses, with the function status', async () => {
    const server = await start(project({ gateway: true }));
    const refused = await connect(server, {}, 'bad').catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401 });
    expect((refused as { body: string }).body).toContain('bad token');
  });

  it('closes its sockets with 1001 after the uplink in flight on SIGTERM, and exits 0', async () => {
    const server = await start(project({ gateway: true }));
    const client = await connect(server);
    await whoami(client);
    client.ws.send('slow 400');
    await until(() => server.calls().find((c) => c.text === 'slow 400'), 15_000, 'the slow uplink');
    server.child.kill('SIGTERM');
    const closed = await client.closed;
    expect(closed.code).toBe(1001);
    // The uplink in flight was answered, and its push sent, before the close.
    expect(client.frames).toContain('slow done');
    expect(await server.exited).toBe(0);
    expect(server.calls().filter((c) => c.event === 'disconnect')).toHaveLength(1);
  });
});

describe('cloudfn start --workers 2 with gateway: true', () => {
  it('delivers a push to a socket the other worker holds, and reports a closed one failed', async () => {
    const server = await start(project({ gateway: true }), ['--workers', '2']);
    const clients: { client: Client; pid: number; sessionId: string }[] = [];
    // The kernel spreads connections over the two workers; connect until both hold one.
    await until(
      async () => {
        const client = await connect(server);
        clients.push({ client, ...(await whoami(client)) });
        return new Set(clients.map((c) => c.pid)).size === 2 ? true : undefined;
      },
      60_000,
      'clients on both workers',
    );
    const a = clients[0]!;
    const b = clients.find((c) => c.pid !== a.pid)!;

    let from = b.client.frames.length;
    const fromA = a.client.frames.length;
    a.client.ws.send(`push ${b.sessionId} across`);
    expect(await b.client.frame('across', from)).toBe('across');
    expect(JSON.parse((await a.client.frame('result ', fromA)).slice(7))).toMatchObject({
      data: { failed_session_id_list: [] },
    });

    // query_info answers for a session of the other worker.
    const q = a.client.frames.length;
    a.client.ws.send(`query ${b.sessionId}`);
    const info = JSON.parse((await a.client.frame('query ', q)).slice(6)) as { data: Record<string, unknown> };
    expect(info.data[b.sessionId]).toMatchObject({ SessionID: b.sessionId, BackendPath: '/game?token=good' });

    // A group with a member on each worker: one push reaches both.
    for (const member of [a, b]) {
      const f = member.client.frames.length;
      member.client.ws.send('join red');
      expect(JSON.parse((await member.client.frame('joined ', f)).slice(7))).toMatchObject({ err_no: 0 });
    }
    from = b.client.frames.length;
    const fromA2 = a.client.frames.length;
    a.client.ws.send('gpush red to-the-room');
    expect(await b.client.frame('to-the-room', from)).toBe('to-the-room');
    expect(await a.client.frame('to-the-room', fromA2)).toBe('to-the-room');

    b.client.ws.close(1000);
    await until(
      () => server.calls().find((c) => c.event === 'disconnect' && c.self === b.sessionId),
      15_000,
      "b's disconnect",
    );
    const f = a.client.frames.length;
    a.client.ws.send(`push ${b.sessionId} gone`);
    expect(JSON.parse((await a.client.frame('result ', f)).slice(7))).toMatchObject({
      data: { failed_session_id_list: [b.sessionId] },
    });
    for (const { client } of clients) client.ws.close();
  }, 90_000);

  it('gives each session of a killed worker one disconnect, from the surviving worker', async () => {
    const server = await start(project({ gateway: true }), ['--workers', '2']);
    const clients: { client: Client; pid: number; sessionId: string }[] = [];
    await until(
      async () => {
        const client = await connect(server);
        clients.push({ client, ...(await whoami(client)) });
        const pids = new Set(clients.map((c) => c.pid));
        const onFirst = clients.filter((c) => c.pid === clients[0]!.pid).length;
        return pids.size === 2 && onFirst >= 2 ? true : undefined;
      },
      60_000,
      'two clients on one worker and one on the other',
    );
    const victim = clients[0]!.pid;
    const orphans = clients.filter((c) => c.pid === victim).map((c) => c.sessionId);
    const survivor = clients.find((c) => c.pid !== victim)!;
    process.kill(victim, 'SIGKILL');
    await until(
      () => {
        const done = server.calls().filter((c) => c.event === 'disconnect' && orphans.includes(c.self));
        return done.length >= orphans.length ? done : undefined;
      },
      15_000,
      'a disconnect per orphan',
    );
    // Give a duplicate the time to show up, then count: exactly one each, made by the survivor.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const disconnects = server.calls().filter((c) => c.event === 'disconnect' && orphans.includes(c.self));
    expect(disconnects.map((c) => c.self).sort()).toEqual([...orphans].sort());
    expect(new Set(disconnects.map((c) => c.pid))).toEqual(new Set([survivor.pid]));
    // A push to an orphan is failed at once: its records are gone.
    const f = survivor.client.frames.length;
    survivor.client.ws.send(`push ${orphans[0]} late`);
    expect(JSON.parse((await survivor.client.frame('result ', f)).slice(7))).toMatchObject({
      data: { failed_session_id_list: [orphans[0]] },
    });
    for (const { client } of clients) client.ws.terminate();
  }, 90_000);
});

describe('cloudfn start --workers 2 on SIGTERM', () => {
  it("closes every worker's sockets with 1001, each with its disconnect, and exits 0", async () => {
    const server = await start(project({ gateway: true }), ['--workers', '2']);
    const clients: { client: Client; pid: number; sessionId: string }[] = [];
    await until(
      async () => {
        const client = await connect(server);
        clients.push({ client, ...(await whoami(client)) });
        return new Set(clients.map((c) => c.pid)).size === 2 ? true : undefined;
      },
      60_000,
      'clients on both workers',
    );
    server.child.kill('SIGTERM');
    const codes = await Promise.all(clients.map(({ client }) => client.closed.then((closed) => closed.code)));
    expect(codes).toEqual(clients.map(() => 1001));
    expect(await server.exited).toBe(0);
    const disconnected = server
      .calls()
      .filter((c) => c.event === 'disconnect')
      .map((c) => c.self);
    expect(disconnected.sort()).toEqual(clients.map((c) => c.sessionId).sort());
  }, 90_000);
});

describe('cloudfn start --workers 2 with CLOUDFN_WS_REQUIRE_CONN_ID=1', () => {
  it('opens one connection per id from /ws/get_conn_id, whichever worker issued it', async () => {
    const server = await start(project({ gateway: true }), ['--workers', '2'], { CLOUDFN_WS_REQUIRE_CONN_ID: '1' });
    const refused = await connect(server).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    const issuers = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const { pid, conn_id } = (await (await fetch(`${server.url}/pushfn?via=connid`)).json()) as {
        pid: number;
        conn_id: string;
      };
      issuers.add(pid);
      const client = await connect(server, {}, 'good', `&conn_id=${conn_id}`);
      await whoami(client);
      client.ws.close();
      const again = await connect(server, {}, 'good', `&conn_id=${conn_id}`).catch((error: unknown) => error);
      expect(again).toMatchObject({ status: 400 });
      expect((again as { body: string }).body).toContain('was already used');
    }
  }, 90_000);
});

describe('cloudfn start with a bad gateway setting', () => {
  it.each([
    [
      { gateway: 'yes' },
      {},
      'option cloudfn.config gateway is invalid: must be true or false (1 or 0 in CLOUDFN_GATEWAY), got "yes"',
    ],
    [
      {},
      { CLOUDFN_GATEWAY: 'maybe' },
      'option CLOUDFN_GATEWAY is invalid: must be true or false (1 or 0 in CLOUDFN_GATEWAY), got "maybe"',
    ],
    [
      { gateway: true },
      { CLOUDFN_WS_IDLE_TIMEOUT: 'soon' },
      'option CLOUDFN_WS_IDLE_TIMEOUT is invalid: must be a whole number of milliseconds (0 for no timeout), got "soon"',
    ],
  ])('refuses %j %j in one line, exit 1', (config, env, line) => {
    const run = spawnSync(process.execPath, [CLI, 'start', project(config), '--port', '0'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(`cloudfn: ${line}`);
  });
});

describe('cloudfn start without the gateway', () => {
  it('answers a push PLATFORM_WS_GATEWAY_OFF naming the config key, and refuses an upgrade', async () => {
    const server = await start(project({}));
    const res = await fetch(`${server.url}/pushfn`);
    const answer = (await res.json()) as { status: number; body: { err_no: number; err_msg: string } };
    expect(answer.status).toBe(503);
    expect(answer.body.err_no).toBe(50300);
    expect(answer.body.err_msg).toContain('"gateway": true');
    expect(answer.body.err_msg).toContain('CLOUDFN_GATEWAY=1');
    expect(answer.body.err_msg).not.toContain('CLOUDFN_WS_PUSH_URL');
    // The SDK stand-in's openApiInvoke of the push host gets the same answer.
    const sdk = JSON.stringify(await (await fetch(`${server.url}/pushfn?via=sdk`)).json());
    expect(sdk).toContain('CLOUDFN_GATEWAY=1');
    expect(sdk).not.toContain('is unset');
    const refused = await connect(server).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 503 });
    expect(JSON.parse((refused as { body: string }).body).err_msg).toContain('"gateway": true');
  });
});
