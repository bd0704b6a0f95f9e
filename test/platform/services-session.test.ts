/**
 * Several services in one dev session, through the built CLI as a user types it
 * (`cloudfn dev game profile`): each service's environment (`CLOUD_ENV=DEV`, its own
 * `SERVICE_ID`), calls between them by `fetch` and by `http.get` answered under one trace, the
 * platform's refusals (a target not enabled in `innerCall`, `https://`, another caller's id), a
 * bare `http.request` to the push host reaching a real WebSocket client, a `.env` asking for
 * PROD, one service failing without stopping the others, and Redis (ioredis) and MySQL (mysql2)
 * counting across a restart of the session.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'src', 'cli', 'index.js');
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const hasComponents = has('redis-server') && (has('mariadbd') || has('mysqld'));

const APP = mkdtempSync(join(tmpdir(), 'cloudfn-session-'));

function write(path: string, text: string): void {
  mkdirSync(join(APP, path, '..'), { recursive: true });
  writeFileSync(join(APP, path), text);
}

const GAME_PLAY = `
import http from 'node:http';
export default async function play() {
  const viaFetch = await (await fetch('http://game-profile.inner-call.dyc.ivolces.com/whoami?via=fetch', {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-custom': 'kept' }, body: JSON.stringify({ n: 1 }),
  })).json();
  const viaGet = await new Promise((resolve, reject) => {
    http.get('http://game-profile.inner-call.dyc.ivolces.com/whoami?via=get', (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject);
  });
  return { CLOUD_ENV: process.env.CLOUD_ENV, SERVICE_ID: process.env.SERVICE_ID, viaFetch, viaGet };
}
`;

const GAME_REFUSED = `
export default async function refused(params: { url: string }) {
  try {
    const res = await fetch(params.url);
    return { status: res.status };
  } catch (error: any) {
    return { error: error.message, cause: error.cause?.message };
  }
}
`;

const GAME_PUSH = `
import http from 'node:http';
export default async function push(params: { openid: string; text: string }) {
  return new Promise((resolve, reject) => {
    const req = http.request('http://ws-push.dyc.ivolces.com/ws/push_data', {
      method: 'POST', headers: { 'x-tt-ws-openids': JSON.stringify([params.openid]), 'content-type': 'text/plain' },
    }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end(params.text);
  });
}
`;

const GAME_TASK = `
export default async function task() {
  const res = await fetch('http://webcast-bytedance-com.openapi.dyc.ivolces.com/api/live_data/task/start', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ roomid: '7001', appid: 'tt-dev-app', msg_type: 'live_comment' }),
  });
  const status = await fetch('http://webcast-bytedance-com.openapi.dyc.ivolces.com/api/live_data/task/get?roomid=7001&appid=tt-dev-app&msg_type=live_comment');
  return { start: await res.json(), get: await status.json() };
}
`;

const GAME_WS = `export default async function websocket_callback() { return { ok: true }; }\n`;

const GAME_COUNT = `
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
const [redisHost, redisPort] = process.env.REDIS_ADDRESS!.split(':');
const redis = new Redis({ host: redisHost, port: Number(redisPort), username: process.env.REDIS_USERNAME, password: process.env.REDIS_PASSWORD });
const [host, port] = process.env.MYSQL_ADDRESS!.split(':');
const db = mysql.createPool({ host, port: Number(port), user: process.env.MYSQL_USERNAME, password: process.env.MYSQL_PASSWORD });
export default async function count() {
  const visits = await redis.incr('visits');
  await db.query('CREATE DATABASE IF NOT EXISTS game');
  await db.query('CREATE TABLE IF NOT EXISTS game.plays (id INT AUTO_INCREMENT PRIMARY KEY)');
  await db.query('INSERT INTO game.plays () VALUES ()');
  const [rows] = await db.query('SELECT COUNT(*) AS n FROM game.plays');
  return { visits, plays: Number((rows as Array<{ n: number }>)[0]!.n) };
}
`;

const PROFILE_WHOAMI = `
export default async function whoami(params: unknown, service: any) {
  return {
    SERVICE_ID: process.env.SERVICE_ID,
    method: service.httpMethod,
    query: service.query,
    params,
    custom: service.headers['x-custom'] ?? null,
    host: service.headers.host,
    openid: service.headers['x-tt-openid'] ?? null,
    traceparent: service.headers.traceparent ?? null,
  };
}
`;

const PROFILE_BACK = `
export default async function back() {
  try { await fetch('http://profile-game.inner-call.dyc.ivolces.com/play'); return { ok: true }; }
  catch (error: any) { return { error: error.message, cause: error.cause?.message }; }
}
`;

beforeAll(() => {
  const components = hasComponents ? ', "components": { "redis": true, "mysql": true }' : '';
  write('game/cloudfn.config.json', `{ "serviceId": "game", "innerCall": ["profile"]${components} }`);
  write('game/.env', 'CLOUD_ENV=PROD\nGREETING=hi\n');
  write('game/functions/play.ts', GAME_PLAY);
  write('game/functions/refused.ts', GAME_REFUSED);
  write('game/functions/push.ts', GAME_PUSH);
  write('game/functions/websocket_callback.ts', GAME_WS);
  write('game/functions/task.ts', GAME_TASK);
  if (hasComponents) write('game/functions/count.ts', GAME_COUNT);
  symlinkSync(join(REPO, 'node_modules'), join(APP, 'game', 'node_modules'));
  write('profile/cloudfn.config.json', '{}');
  write('profile/functions/whoami.ts', PROFILE_WHOAMI);
  write('profile/functions/back.ts', PROFILE_BACK);
  // A service whose config cannot be read: it stops, the others serve.
  write('broken/cloudfn.config.json', '{ "serviceId": "broken", "timeout": "soon" }');
  write('broken/functions/x.ts', 'export default () => 1;\n');
});

afterAll(() => rmSync(APP, { recursive: true, force: true }));

interface Session {
  child: ChildProcess;
  output: () => string;
  urls: Record<string, string>;
  stop(): Promise<number | null>;
}

/** Starts `cloudfn dev <folders>` on free ports; resolves once `ready` services print their start line. */
async function startSession(folders: string[], ready: number): Promise<Session> {
  const child = spawn(process.execPath, [CLI, 'dev', ...folders, '--port', '0', '--no-typecheck'], {
    cwd: APP,
    env: { ...process.env, NO_COLOR: '1', PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const deadline = Date.now() + 90_000;
  while ((text.match(/dev server on /g) ?? []).length < ready) {
    if (child.exitCode !== null) throw new Error(`the session exited: ${text}`);
    if (Date.now() > deadline) throw new Error(`the session did not start: ${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const urls: Record<string, string> = {};
  for (const [, id, url] of text.matchAll(/^ {2}(\S+)\s+(http:\/\/\S+)\s+console/gm)) urls[id!] = url!;
  return {
    child,
    output: () => text,
    urls,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

const get = async (url: string) => (await fetch(url)).json() as Promise<Record<string, any>>;

describe('cloudfn dev game profile broken', () => {
  let session: Session;
  beforeAll(async () => {
    session = await startSession(['game', 'profile', 'broken'], 2);
  }, 120_000);
  afterAll(async () => {
    expect(await session?.stop()).not.toBeNull();
  }, 60_000);

  it('prints a table of the services, on ports that follow each other', () => {
    expect(Object.keys(session.urls).sort()).toEqual(['broken', 'game', 'profile']);
    expect(session.output()).toMatch(/^services:\n {2}game {5}http:\/\/127\.0\.0\.1:\d+ {2}console /m);
  });

  it("gives game's function CLOUD_ENV=DEV and SERVICE_ID=game, and profile answers fetch and http.get", async () => {
    const answer = await get(`${session.urls['game']}/play`);
    expect(answer['CLOUD_ENV']).toBe('DEV');
    expect(answer['SERVICE_ID']).toBe('game');
    const { viaFetch, viaGet } = answer;
    expect(viaFetch).toMatchObject({
      SERVICE_ID: 'profile',
      method: 'POST',
      query: { via: 'fetch' },
      params: { n: 1 },
      custom: 'kept',
      host: 'game-profile.inner-call.dyc.ivolces.com',
      // An inner call does not pass the gateway: no dev user is added.
      openid: null,
    });
    expect(viaGet).toMatchObject({ SERVICE_ID: 'profile', method: 'GET', query: { via: 'get' } });
    // Both calls continue the trace of game's request, each with a span of its own.
    const trace = (value: string) => value.split('-')[1];
    expect(trace(viaFetch.traceparent)).toBe(trace(viaGet.traceparent));
    expect(viaFetch.traceparent).not.toBe(viaGet.traceparent);
    // The trace shows in both services' request lines.
    const id = trace(viaFetch.traceparent)!;
    await expect.poll(() => session.output()).toMatch(new RegExp(`profile │ GET /whoami 200 .* trace=${id}`));
    await expect.poll(() => session.output()).toMatch(new RegExp(`game {4}│ GET /play 200 .* trace=${id}`));
  });

  it('refuses a target the caller did not enable, naming innerCall and the caller', async () => {
    const answer = await get(`${session.urls['profile']}/back`);
    expect(answer['error']).toBe('fetch failed');
    expect(answer['cause']).toContain('"game" is not enabled for "profile"');
    expect(answer['cause']).toContain('innerCall');
    await expect.poll(() => session.output()).toMatch(/profile │ back warn .*innerCall/);
  });

  it('refuses https:// and a host that names another caller', async () => {
    const https = await get(
      `${session.urls['game']}/refused?url=${encodeURIComponent('https://game-profile.inner-call.dyc.ivolces.com/whoami')}`,
    );
    expect(https['cause']).toContain('HTTP only');
    const other = await get(
      `${session.urls['game']}/refused?url=${encodeURIComponent('http://profile-game.inner-call.dyc.ivolces.com/play')}`,
    );
    expect(other['cause']).toContain('names the caller "profile", but this service is "game"');
  });

  it('warns once that CLOUD_ENV=PROD from .env is ignored', () => {
    expect(session.output().match(/CLOUD_ENV=PROD is ignored/g)).toHaveLength(1);
  });

  it('reaches a WebSocket client through a bare http.request to the push host', async () => {
    const ws = new WebSocket(`${session.urls['game']!.replace('http', 'ws')}/__dycloud__/ws/connect/`, {
      headers: { 'x-tt-service-path': '/websocket_callback', 'x-tt-openid': 'ann' },
    });
    const message = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answer = await get(`${session.urls['game']}/push?openid=ann&text=hello`);
    expect(answer['status']).toBe(200);
    expect(await message).toBe('hello');
    ws.close();
  });

  it("answers the live-room OpenAPI's intranet host from the live simulator", async () => {
    const answer = await get(`${session.urls['game']}/task`);
    expect(answer['start']).toMatchObject({ err_no: 0, data: { task_id: expect.any(String) } });
    expect(answer['get']).toMatchObject({ err_no: 0, data: { status: 3 } });
  });

  it('keeps serving when one service fails to start', () => {
    expect(session.output()).toMatch(/broken +│ .*timeout/);
    expect(session.output()).toMatch(/broken +│ stopped \(exit code \d+\); the other services keep running/);
  });
});

describe.skipIf(!hasComponents)('components across a restart of the session', () => {
  it('keeps counting in Redis and MySQL after the session stops and starts again', async () => {
    const first = await startSession(['game', 'profile'], 2);
    let counts: Record<string, any>;
    try {
      await get(`${first.urls['game']}/count`);
      counts = await get(`${first.urls['game']}/count`);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const again = await startSession(['game', 'profile'], 2);
    try {
      const next = await get(`${again.urls['game']}/count`);
      expect(next['visits']).toBe(counts['visits'] + 1);
      expect(next['plays']).toBe(counts['plays'] + 1);
    } finally {
      expect(await again.stop()).toBe(0);
    }
    expect(again.output()).toMatch(
      /component redis on 127\.0\.0\.1:\d+ \(data in .*game\/\.cloudfn\/components\/redis\)/,
    );
  }, 240_000);

  it('restarts a killed redis-server and mariadbd on their ports, and the counts go on', async () => {
    const session = await startSession(['game', 'profile'], 2);
    try {
      const counts = await get(`${session.urls['game']}/count`);
      for (const name of ['redis', 'mysql']) {
        const dir = join(APP, 'game', '.cloudfn', 'components', name);
        const before = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as { pid: number; port: number };
        const killed = Date.now();
        process.kill(before.pid, 'SIGKILL');
        await until(
          () => new RegExp(`component ${name} restarted on port ${before.port} \\(pid \\d+\\)`).test(session.output()),
          60_000,
        );
        console.log(`session: ${name} killed -> restarted on its port in ${Date.now() - killed} ms`);
        expect(session.output()).toContain(
          `component ${name} (pid ${before.pid}) ended (SIGKILL); restarting it on port ${before.port}`,
        );
      }
      // The function's clients reconnect to the same addresses: nothing was lost.
      const next = await until(async () => {
        const answer = await fetch(`${session.urls['game']}/count`);
        return answer.ok ? ((await answer.json()) as Record<string, any>) : undefined;
      }, 30_000);
      expect(next['visits']).toBe(counts['visits'] + 1);
      expect(next['plays']).toBe(counts['plays'] + 1);
      // The service's console shows each one's state.
      const shown = (await get(`${session.urls['game']}/_cloudfn/api/components`))['components'] as Array<
        Record<string, string>
      >;
      expect(shown.map(({ name, state, detail }) => ({ name, state, detail }))).toEqual([
        { name: 'redis', state: 'running', detail: 'restarted 1 time; last ended by SIGKILL' },
        { name: 'mysql', state: 'running', detail: 'restarted 1 time; last ended by SIGKILL' },
      ]);
    } finally {
      expect(await session.stop()).toBe(0);
    }
  }, 240_000);
});

/** Polls `check` until it is truthy; throws after `timeoutMs`. */
async function until<T>(check: () => T | Promise<T>, timeoutMs: number): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
