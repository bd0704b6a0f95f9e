/**
 * Inner calls decided as the platform decides them (runtime/intranet/inner-call.ts): the
 * `{from}-{to}` label split against the known ids (hyphens inside ids included), then HTTP only,
 * the caller's own id, an enabled target; and the start side for self-hosted fleets: the
 * `innerCallUrls` option and `CLOUDFN_INNER_CALL_<ID>` variables, read and refused with the
 * fix, and `cloudfn start` of a real project whose function calls another service by `fetch`
 * and `http.get` with nothing but the map.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { innerCallRoute, type InnerCallTable } from '../../runtime/intranet/inner-call.js';
import { resolveOptions } from '../../runtime/options.js';

const services = new Map([
  ['game', { host: '127.0.0.1', port: 8000 }],
  ['profile', { host: '127.0.0.1', port: 8001 }],
  ['rank-board', { host: '127.0.0.1', port: 8002 }],
]);
const table: InnerCallTable = {
  self: 'game',
  services,
  enabled: ['profile', 'rank-board'],
  enableWhere: 'innerCall in game/cloudfn.config.json',
};

describe('innerCallRoute', () => {
  it('routes an enabled target, ids with hyphens included', () => {
    expect(innerCallRoute(table, 'http:', 'game-profile')).toEqual({ host: '127.0.0.1', port: 8001 });
    expect(innerCallRoute(table, 'http:', 'game-rank-board')).toEqual({ host: '127.0.0.1', port: 8002 });
  });

  it.each([
    [
      'an unenabled target',
      { ...table, enabled: ['profile'] },
      'http:',
      'game-rank-board',
      'add "rank-board" to innerCall in game/cloudfn.config.json',
    ],
    ['https', table, 'https:', 'game-profile', 'HTTP only'],
    ['another caller', table, 'http:', 'profile-game', 'names the caller "profile", but this service is "game"'],
    [
      'an enabled target that does not run',
      { ...table, enabled: ['ghost'] },
      'http:',
      'game-ghost',
      'no service "ghost" runs here',
    ],
    [
      'a target neither enabled nor running, as the platform would: not enabled',
      table,
      'http:',
      'game-ghost',
      'add "ghost" to innerCall',
    ],
    ['no known id', table, 'http:', 'a-b', 'no known service id'],
  ] as const)('refuses %s, saying how to fix it', (_name, given, protocol, pair, text) => {
    const route = innerCallRoute(given, protocol, pair);
    expect(route).toHaveProperty('refuse');
    expect((route as { refuse: string }).refuse).toContain(text);
  });

  it("leaves a fleet's unknown ids to the real DNS", () => {
    const fleet = { ...table, enabled: undefined, unknown: 'pass' } as const;
    expect(innerCallRoute(fleet, 'http:', 'game-ghost')).toBeUndefined();
    expect(innerCallRoute(fleet, 'http:', 'x-y')).toBeUndefined();
    expect(innerCallRoute(fleet, 'http:', 'game-profile')).toEqual({ host: '127.0.0.1', port: 8001 });
  });
});

describe('the innerCallUrls option', () => {
  it('reads the config object, the list variable and one variable per id (which wins)', () => {
    const options = resolveOptions({
      config: { innerCallUrls: { profile: 'http://10.0.0.5:8000/' } },
      env: {
        CLOUDFN_INNER_CALL_URLS: 'rank=http://10.0.0.6:8000',
        CLOUDFN_INNER_CALL_RANK_BOARD: 'http://10.0.0.7:9000',
      },
    });
    expect(options.innerCallUrls).toEqual({ rank: 'http://10.0.0.6:8000', 'rank-board': 'http://10.0.0.7:9000' });
    expect(resolveOptions({ config: { innerCallUrls: { profile: 'http://10.0.0.5:8000/' } } }).innerCallUrls).toEqual({
      profile: 'http://10.0.0.5:8000',
    });
  });

  it.each([
    [{ config: { innerCallUrls: { profile: 'https://a:1' } } }, 'inner calls are HTTP only'],
    [{ config: { innerCallUrls: { Profile: 'http://a:1' } } }, 'service id "Profile"'],
    [{ config: { innerCallUrls: ['http://a:1'] } }, 'must map service ids'],
    [{ env: { CLOUDFN_INNER_CALL_PROFILE: 'http://a:1/api' } }, 'no path'],
  ])('refuses %j with the fix', (sources, text) => {
    expect(() => resolveOptions(sources as never)).toThrow(text);
  });
});

const REPO = resolve(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'src', 'cli', 'index.js');
const dir = mkdtempSync(join(tmpdir(), 'cloudfn-fleet-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('cloudfn start with a map of the fleet', () => {
  it('sends a call to {SERVICE_ID}-{id} to the mapped URL, by fetch and by http.get', async () => {
    // The other service: a plain server recording what reached it.
    const seen: Array<{ method: string; url: string; host: string; body: string }> = [];
    const profile = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, host: req.headers.host!, body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ from: 'profile', url: req.url }));
      });
    });
    await new Promise<void>((r) => profile.listen(0, '127.0.0.1', r));
    const port = (profile.address() as AddressInfo).port;
    mkdirSync(join(dir, 'functions'), { recursive: true });
    writeFileSync(
      join(dir, 'functions', 'call.mjs'),
      `import http from 'node:http';
export default async function call() {
  const a = await (await fetch('http://game-profile.inner-call.dyc.ivolces.com/who?x=1', { method: 'POST', body: 'hello' })).json();
  const b = await new Promise((resolve, reject) => http.get('http://game-profile.dycloud.service/who?x=2', (res) => {
    let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve(JSON.parse(text)));
  }).on('error', reject));
  let other;
  try { await fetch('http://game-ghost.inner-call.dyc.ivolces.com/'); } catch (error) { other = error.cause?.code ?? error.cause?.message; }
  return { a, b, other };
}
`,
    );
    const child = spawn(process.execPath, [CLI, 'start', dir, '--port', '0', '--host', '127.0.0.1'], {
      env: { ...process.env, SERVICE_ID: 'game', CLOUDFN_INNER_CALL_PROFILE: `http://127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await expect.poll(() => text, { timeout: 30_000 }).toMatch(/http:\/\/127\.0\.0\.1:(\d+)/);
    const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text)![1]!;
    const answer = (await (await fetch(`${url}/call`)).json()) as Record<string, any>;
    expect(answer['a']).toEqual({ from: 'profile', url: '/who?x=1' });
    expect(answer['b']).toEqual({ from: 'profile', url: '/who?x=2' });
    // An id the map does not name goes to the real DNS, which does not know the host here.
    expect(answer['other']).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(seen.map((s) => [s.method, s.host, s.body])).toEqual([
      ['POST', 'game-profile.inner-call.dyc.ivolces.com', 'hello'],
      ['GET', 'game-profile.dycloud.service', ''],
    ]);
    profile.close();
  }, 60_000);
});
