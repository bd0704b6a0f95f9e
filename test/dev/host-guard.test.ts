/**
 * Who may call the local servers (issue 50), over real sockets: `cloudfn dev`, a session of two
 * services (the built CLI, each service its own process) and `cloudfn platform` (the built CLI).
 * A forged `Host` is refused 403 on a function, the console API and an upgrade; loopback names
 * and `allowedHosts` names pass; a write from a page of another origin (a `text/plain` POST, a
 * form POST) is refused with nothing written; a WebSocket upgrade from `http://evil.example` is
 * refused and one without `Origin` connects.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type {
  DevServer,
  startDevPlatform as StartDevPlatform,
  startDevServer as StartDevServer,
} from '../../src/dev/index.js';
import type { DevSession, startDevSession as StartDevSession } from '../../src/dev/session.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';
import { until } from '../testing/until.js';

/** What a request over a socket was answered. */
interface Answer {
  status: number;
  body: string;
  code: string | undefined;
}

/** One request to `base` over a socket, with exactly the headers given (a forged Host among them). */
function call(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: {
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let code: string | undefined;
          try {
            code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body, code });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A WebSocket upgrade of `path` with the headers given: 101, or the status of the refusal. */
function upgrade(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '', code: undefined });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body, code: /"code":"(\w+)"/.exec(body)?.[1] });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A real `ws` client: resolves with 'open', or the status of the refusal. */
function wsConnect(
  base: string,
  options: { origin?: string; headers?: Record<string, string> } = {},
): Promise<number | 'open'> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}${CONNECT}`, {
    headers: { 'X-TT-SERVICE-PATH': '/websocket_callback', ...options.headers },
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  return new Promise((resolve, reject) => {
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}

const CONNECT = '/__dycloud__/ws/connect/';
const EVIL = 'http://evil.example';
const SECRET = JSON.stringify({ _id: 'pwned', token: 'attacker' });
const FORM = `x=${encodeURIComponent(JSON.stringify({ secrets: [{ _id: 'pwned' }] }))}`;
const FILES = {
  'functions/hello.ts': 'export default () => ({ hello: 1 });\n',
  'functions/websocket_callback.ts': 'export default () => ({ ok: true });\n',
};

/** Every status seen, printed once at the end of the file: the runs the report shows. */
const seen: string[] = [];
const note = (what: string, answer: Answer | number | 'open'): void => {
  seen.push(
    `${what} -> ${typeof answer === 'object' ? `${answer.status}${answer.code ? ` ${answer.code}` : ''}` : answer}`,
  );
};
afterAll(() => {
  if (process.env['CLOUDFN_GUARD_REPORT'] !== undefined) process.stdout.write(`${seen.join('\n')}\n`);
});

/** The checks every dev server of the file passes: Host, writes and upgrades. */
function refusesForgedHosts(label: string, base: () => string, fn: string): void {
  it(`${label}: Host evil.example gets 403 on a function, the console, its API, the dev routes and an upgrade`, async () => {
    const port = new URL(base()).port;
    const host = { host: `evil.example:${port}` };
    const paths: [string, string][] = [
      ['GET', `/${fn}`],
      ['GET', '/_cloudfn/'],
      ['GET', '/_cloudfn/api/functions'],
      ['GET', '/_cloudfn/api/database?collection=secrets'],
      ['GET', '/_cloudfn/api/events'],
      ['GET', '/_cloudfn/health'],
      ['POST', `/_cloudfn/trigger/${fn}`],
      ['POST', '/_cloudfn/ws-push/ws/push_data'],
      ['GET', '/no-such-function'],
    ];
    for (const [method, path] of paths) {
      const answer = await call(base(), path, { method, headers: host });
      note(`${label} ${method} ${path} Host evil.example`, answer);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.code).toBe('CLOUDFN_DEV_HOST_NOT_ALLOWED');
    }
    const answer = await call(base(), `/${fn}`, { headers: host });
    expect(JSON.parse(answer.body).error.message).toMatch(
      /^Host evil\.example:\d+ is not allowed: .*add "evil\.example" to /,
    );
    const upgraded = await upgrade(base(), CONNECT, { ...host, 'x-tt-service-path': '/websocket_callback' });
    note(`${label} upgrade ${CONNECT} Host evil.example`, upgraded);
    expect(upgraded.status).toBe(403);
    expect(upgraded.code).toBe('CLOUDFN_DEV_HOST_NOT_ALLOWED');
  });

  it(`${label}: loopback names are answered`, async () => {
    const port = new URL(base()).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LocalHost:${port}`,
      `127.8.9.10:${port}`,
      `[::1]:${port}`,
      `app.localhost:${port}`,
    ]) {
      const answer = await call(base(), `/${fn}`, { headers: { host } });
      note(`${label} GET /${fn} Host ${host}`, answer);
      expect(answer.status, host).toBe(200);
    }
  });

  it(`${label}: a page of another origin cannot write (text/plain, form), a client without Origin and the console's own pages can`, async () => {
    const port = new URL(base()).port;
    const plain = await call(base(), '/_cloudfn/api/database/collections/secrets', {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'text/plain;charset=UTF-8' },
      body: SECRET,
    });
    note(`${label} POST /_cloudfn/api/database/collections/secrets Origin evil text/plain`, plain);
    expect(plain.status).toBe(403);
    expect(plain.code).toBe('CLOUDFN_DEV_ORIGIN_NOT_ALLOWED');
    const form = await call(base(), '/_cloudfn/api/database/import?merge=1', {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/x-www-form-urlencoded' },
      body: FORM,
    });
    note(`${label} POST /_cloudfn/api/database/import?merge=1 Origin evil form`, form);
    expect(form.status).toBe(403);
    // Another page on this machine (another port) is another origin too.
    const local = await call(base(), '/_cloudfn/api/database/collections/secrets', {
      method: 'POST',
      headers: { origin: 'http://localhost:5173', 'content-type': 'text/plain' },
      body: SECRET,
    });
    note(`${label} POST collections/secrets Origin http://localhost:5173`, local);
    expect(local.status).toBe(403);
    // Without Origin a JSON write API still needs JSON: a browser cannot send it without asking.
    const untyped = await call(base(), '/_cloudfn/api/database/collections/secrets', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: SECRET,
    });
    note(`${label} POST collections/secrets no Origin text/plain`, untyped);
    expect(untyped.status).toBe(415);
    expect(untyped.code).toBe('CLOUDFN_DEV_JSON_REQUIRED');
    for (const [method, path] of [
      ['DELETE', '/_cloudfn/api/database'],
      ['POST', `/_cloudfn/trigger/${fn}`],
      ['POST', '/_cloudfn/live/room-1/token'],
      ['POST', '/_cloudfn/ws-push/ws/push_data'],
    ] as const) {
      const answer = await call(base(), path, {
        method,
        headers: { origin: EVIL, 'content-type': 'text/plain' },
        body: '{}',
      });
      note(`${label} ${method} ${path} Origin evil`, answer);
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
    const listed = await call(base(), '/_cloudfn/api/database?collection=secrets');
    expect(JSON.parse(listed.body).collections).toEqual([]);
    // The console's own page (its origin, or loopback on its port) writes JSON; a client without Origin too.
    const own = await call(base(), '/_cloudfn/api/database/collections/notes', {
      method: 'POST',
      headers: { origin: `http://localhost:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ _id: 'n1' }),
    });
    note(`${label} POST collections/notes Origin http://localhost:${port} JSON`, own);
    expect(own.status).toBe(201);
    const bare = await call(base(), '/_cloudfn/api/database/collections/notes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ _id: 'n2' }),
    });
    note(`${label} POST collections/notes no Origin JSON`, bare);
    expect(bare.status).toBe(201);
    const after = await call(base(), '/_cloudfn/api/database');
    expect(JSON.parse(after.body).collections).toEqual([{ name: 'notes', count: 2 }]);
  });

  it(`${label}: a WebSocket from http://evil.example is refused, one without Origin or from a loopback page connects`, async () => {
    const evil = await wsConnect(base(), { origin: EVIL });
    note(`${label} ws ${CONNECT} Origin evil`, evil);
    expect(evil).toBe(403);
    const none = await wsConnect(base());
    note(`${label} ws ${CONNECT} no Origin`, none);
    expect(none).toBe('open');
    const loopback = await wsConnect(base(), { origin: 'http://localhost:5173' });
    note(`${label} ws ${CONNECT} Origin http://localhost:5173`, loopback);
    expect(loopback).toBe('open');
  });
}

describe('cloudfn dev', () => {
  let startDevServer: typeof StartDevServer;
  let project: TempProject;
  let dev: DevServer;
  beforeAll(async () => {
    ensureDist();
    ({ startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as { startDevServer: typeof StartDevServer });
    project = tempProject(FILES);
    dev = await startDevServer({ root: project.root, port: 0, typecheck: false, sink: { write: () => {} } });
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    project?.remove();
  });

  refusesForgedHosts('dev', () => dev.url, 'hello');

  it('answers the names of allowedHosts (config, a leading dot for subdomains) and CLOUDFN_ALLOWED_HOSTS, and every Host with true', async () => {
    const other = tempProject({
      ...FILES,
      'cloudfn.config.json': JSON.stringify({ allowedHosts: ['dev.example.test', '.tunnel.test'] }),
    });
    const servers: DevServer[] = [];
    try {
      const configured = await startDevServer({
        root: other.root,
        port: 0,
        typecheck: false,
        sink: { write: () => {} },
      });
      servers.push(configured);
      for (const [host, status] of [
        ['dev.example.test', 200],
        ['abc.tunnel.test:443', 200],
        ['tunnel.test', 200],
        ['evil.example', 403],
        ['dev.example.test.evil.example', 403],
      ] as const) {
        const answer = await call(configured.url, '/hello', { headers: { host } });
        note(`dev allowedHosts config GET /hello Host ${host}`, answer);
        expect(answer.status, host).toBe(status);
      }
      // A page of an allowed name may open a WebSocket (a game served to a phone over the LAN name).
      const allowedPage = await wsConnect(configured.url, { origin: 'http://dev.example.test:5173' });
      note('dev allowedHosts ws Origin http://dev.example.test:5173', allowedPage);
      expect(allowedPage).toBe('open');

      process.env['CLOUDFN_ALLOWED_HOSTS'] = 'phone.lan.test';
      const fromEnv = await startDevServer({
        root: project.root,
        port: 0,
        typecheck: false,
        sink: { write: () => {} },
      });
      servers.push(fromEnv);
      delete process.env['CLOUDFN_ALLOWED_HOSTS'];
      const envAnswer = await call(fromEnv.url, '/hello', { headers: { host: 'phone.lan.test:8000' } });
      note('dev CLOUDFN_ALLOWED_HOSTS GET /hello Host phone.lan.test:8000', envAnswer);
      expect(envAnswer.status).toBe(200);
      expect((await call(fromEnv.url, '/hello', { headers: { host: 'evil.example' } })).status).toBe(403);

      other.write('cloudfn.config.json', JSON.stringify({ allowedHosts: true }));
      const open = await startDevServer({ root: other.root, port: 0, typecheck: false, sink: { write: () => {} } });
      servers.push(open);
      const any = await call(open.url, '/hello', { headers: { host: 'evil.example' } });
      note('dev allowedHosts true GET /hello Host evil.example', any);
      expect(any.status).toBe(200);
      // The writes' and the WebSockets' Origin checks stay on.
      const ws = await wsConnect(open.url, { origin: EVIL });
      note('dev allowedHosts true ws Origin evil', ws);
      expect(ws).toBe(403);
      const write = await call(open.url, '/_cloudfn/api/database/collections/secrets', {
        method: 'POST',
        headers: { origin: EVIL, 'content-type': 'text/plain' },
        body: SECRET,
      });
      expect(write.status).toBe(403);
    } finally {
      delete process.env['CLOUDFN_ALLOWED_HOSTS'];
      for (const server of servers) await server.close();
      other.remove();
    }
  }, 60_000);

  it("answers the machine's own addresses when it listens on 0.0.0.0 (a phone on the LAN), and still refuses a name", async () => {
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((info) => info !== undefined && info.family === 'IPv4' && !info.internal)
      .map((info) => info!.address);
    const wide = await startDevServer({
      root: project.root,
      host: '0.0.0.0',
      port: 0,
      typecheck: false,
      sink: { write: () => {} },
    });
    try {
      const base = `http://127.0.0.1:${wide.port}`;
      for (const address of addresses) {
        const answer = await call(base, '/hello', { headers: { host: `${address}:${wide.port}` } });
        note(`dev --host 0.0.0.0 GET /hello Host ${address}`, answer);
        expect(answer.status, address).toBe(200);
      }
      const named = await call(base, '/hello', { headers: { host: `evil.example:${wide.port}` } });
      note('dev --host 0.0.0.0 GET /hello Host evil.example', named);
      expect(named.status).toBe(403);
    } finally {
      await wide.close();
    }
  });

  it('refuses a bad allowedHosts at start-up, naming the value and the fix', async () => {
    const bad = tempProject({
      ...FILES,
      'cloudfn.config.json': JSON.stringify({ allowedHosts: ['http://x.test:80'] }),
    });
    try {
      await expect(
        startDevServer({ root: bad.root, port: 0, typecheck: false, sink: { write: () => {} } }),
      ).rejects.toThrow(
        /allowedHosts.*"http:\/\/x\.test:80", which is not a host name; give names without scheme, port or path/,
      );
    } finally {
      bad.remove();
    }
  });
});

describe('a session of two services (cloudfn dev game profile)', () => {
  let project: TempProject;
  let session: DevSession;
  const urls: Record<string, string> = {};
  beforeAll(async () => {
    ensureDist();
    const { startDevSession } = (await import(`${REPO}/dist/src/dev/session.js`)) as {
      startDevSession: typeof StartDevSession;
    };
    project = tempProject({
      'game/cloudfn.config.json': JSON.stringify({ serviceId: 'game', innerCall: ['profile'] }),
      'game/functions/hello.ts': FILES['functions/hello.ts'],
      'game/functions/websocket_callback.ts': FILES['functions/websocket_callback.ts'],
      // game calls profile at its inner-call host: that Host is the platform's, and answered.
      'game/functions/profile_env.ts':
        "export default async () => (await fetch('http://game-profile.inner-call.dyc.ivolces.com/env')).json();\n",
      'profile/cloudfn.config.json': JSON.stringify({ serviceId: 'profile', allowedHosts: ['profile.lan.test'] }),
      'profile/functions/env.ts': 'export default () => ({ serviceId: process.env.SERVICE_ID });\n',
      'profile/functions/websocket_callback.ts': FILES['functions/websocket_callback.ts'],
    });
    session = await startDevSession({
      roots: [`${project.root}/game`, `${project.root}/profile`],
      port: 0,
      args: ['--no-typecheck'],
      out: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    for (const service of session.services) {
      urls[service.id] = service.url;
      await until(
        async () =>
          (await fetch(`${service.url}/_cloudfn/api/services`).catch(() => undefined))?.ok ? true : undefined,
        30_000,
        () => `${service.id} to answer`,
      );
    }
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    project?.remove();
  });

  refusesForgedHosts('session game', () => urls['game']!, 'hello');
  refusesForgedHosts('session profile', () => urls['profile']!, 'env');

  it("answers each service's own allowedHosts and the platform's inner-call host between them", async () => {
    const named = await call(urls['profile']!, '/env', { headers: { host: 'profile.lan.test' } });
    note('session profile GET /env Host profile.lan.test', named);
    expect(named.status).toBe(200);
    // profile's name is not game's.
    const other = await call(urls['game']!, '/hello', { headers: { host: 'profile.lan.test' } });
    note('session game GET /hello Host profile.lan.test', other);
    expect(other.status).toBe(403);
    const inner = await call(urls['game']!, '/profile_env');
    note('session game GET /profile_env (inner call to profile)', inner);
    expect(inner.status).toBe(200);
    expect(JSON.parse(inner.body)).toEqual({ serviceId: 'profile' });
  });
});

describe('cloudfn platform', () => {
  let child: ChildProcess;
  let work: string;
  let base: string;
  beforeAll(async () => {
    ensureDist();
    work = mkdtempSync(join(tmpdir(), 'cloudfn-guard-platform-'));
    child = spawn(
      process.execPath,
      [
        join(REPO, 'dist/src/cli/index.js'),
        'platform',
        '--port',
        '0',
        '--data',
        work,
        '--no-ffmpeg',
        '--allowed-hosts',
        'media.lan.test',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    base = await until(
      () => /listening on (http:\/\/\S+)/.exec(out)?.[1],
      30_000,
      () => `the platform to start (got ${out})`,
    );
  }, 60_000);
  afterAll(() => {
    child?.kill('SIGTERM');
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('refuses Host evil.example on its API, its media links and an upgrade; answers loopback and --allowed-hosts names', async () => {
    const port = new URL(base).port;
    for (const [method, path] of [
      ['POST', '/oauth/client_token/'],
      ['POST', '/api/cloud_voc/get_video_by_vid'],
      ['GET', '/media/anything'],
    ] as const) {
      const answer = await call(base, path, {
        method,
        headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
        body: '{}',
      });
      note(`platform ${method} ${path} Host evil.example`, answer);
      expect(answer.status, path).toBe(403);
      expect(answer.code).toBe('CLOUDFN_DEV_HOST_NOT_ALLOWED');
      expect(JSON.parse(answer.body).error.message).toContain('--allowed-hosts or CLOUDFN_ALLOWED_HOSTS');
    }
    const upgraded = await upgrade(base, '/', { host: 'evil.example' });
    note('platform upgrade / Host evil.example', upgraded);
    expect(upgraded.status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'media.lan.test']) {
      const answer = await call(base, '/oauth/client_token/', {
        method: 'POST',
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify({ client_key: 'k', client_secret: 's', grant_type: 'client_credential' }),
      });
      note(`platform POST /oauth/client_token/ Host ${host}`, answer);
      expect(answer.status, host).not.toBe(403);
    }
  });

  it('refuses a write from a page of another origin; a client without Origin is answered', async () => {
    const plain = await call(base, '/oauth/client_token/', {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'text/plain' },
      body: JSON.stringify({ client_key: 'k', client_secret: 's', grant_type: 'client_credential' }),
    });
    note('platform POST /oauth/client_token/ Origin evil text/plain', plain);
    expect(plain.status).toBe(403);
    expect(plain.code).toBe('CLOUDFN_DEV_ORIGIN_NOT_ALLOWED');
  });

  it('guards the emulator of cloudfn dev --platform the same way', async () => {
    const { startDevPlatform } = (await import(`${REPO}/dist/src/dev/index.js`)) as {
      startDevPlatform: typeof StartDevPlatform;
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'cloudfn-guard-dev-platform-'));
    const dev = await startDevPlatform(dataDir, { port: 0, dataDir, log: () => {} });
    try {
      const forged = await call(dev.platform.url, '/oauth/client_token/', {
        method: 'POST',
        headers: { host: 'evil.example', 'content-type': 'application/json' },
        body: '{}',
      });
      note('dev --platform emulator POST /oauth/client_token/ Host evil.example', forged);
      expect(forged.status).toBe(403);
      const cross = await call(dev.platform.url, '/oauth/client_token/', {
        method: 'POST',
        headers: { origin: EVIL, 'content-type': 'text/plain' },
        body: '{}',
      });
      note('dev --platform emulator POST /oauth/client_token/ Origin evil', cross);
      expect(cross.status).toBe(403);
      const own = await call(dev.platform.url, '/oauth/client_token/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_key: 'k', client_secret: 's', grant_type: 'client_credential' }),
      });
      note('dev --platform emulator POST /oauth/client_token/ loopback, no Origin', own);
      expect(own.status).toBe(200);
    } finally {
      await dev.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
