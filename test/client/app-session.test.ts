/**
 * One client for an app, against a real `cloudfn dev` session of two services
 * (test/fixtures/app: rank, and profile with `gatewayLimits`), run as users run it from the
 * built CLI: `cloudfn client` at the app root writes one file that type-checks alone in an
 * empty folder and reaches both services through `createCloud`, every call sent to rank's URL
 * (its gateway passes profile's on); and the platform's gateway failures arrive in its
 * envelope (HTTP 200, status_code, status_message, logid) and in the client's `fail` as its
 * errMsg: 13005 for an unknown service, 14021 over the body limit, 14010 over the QPS limit,
 * and 21100 when nothing answers.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudFailure } from '../../src/client/cloud-failure.js';
import { createCloud } from '../../src/client/create-cloud.js';
import type { DevSession, startDevSession as StartDevSession } from '../../src/dev/session.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { until } from '../testing/until.js';

const APP = join(REPO, 'test/fixtures/app');
const CLI = join(REPO, 'dist/src/cli/index.js');
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');
/** errMsg as the platform writes it: `<function_name>:<status_message>, code=<status_code>, logid=<logid>`. */
const ERR_MSG = /^callContainer:(.+), code=(\d+), logid=([\w.:-]*)$/;

let session: DevSession;
let output = '';
let rankUrl = '';
let miniapp: string;

/** What `fail` receives for one call, through the callbacks (as a mini-program calls). */
function failureOf(serviceID: string, path: string, init?: { method?: string; body?: unknown }): Promise<CloudFailure> {
  return new Promise((resolve, reject) => {
    createCloud({ envID: 'dev', serviceID, baseUrl: rankUrl }).callContainer({
      path,
      ...(init === undefined ? {} : { init }),
      success: (response) =>
        reject(new Error(`expected a failure, got ${response.statusCode} ${JSON.stringify(response.data)}`)),
      fail: resolve,
    });
  });
}

beforeAll(async () => {
  ensureDist();
  const { startDevSession } = (await import(`${REPO}/dist/src/dev/session.js`)) as {
    startDevSession: typeof StartDevSession;
  };
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  session = await startDevSession({
    roots: [join(APP, 'rank'), join(APP, 'profile')],
    port: 0,
    args: ['--no-typecheck'],
    out,
  });
  rankUrl = session.services.find((service) => service.id === 'rank')!.url;
  for (const service of session.services)
    await until(
      async () => ((await fetch(`${service.url}/_cloudfn/api/services`).catch(() => undefined))?.ok ? true : undefined),
      60_000,
      () => `${service.id} to answer; the session printed:\n${output}`,
    );
  miniapp = mkdtempSync(join(tmpdir(), 'cloudfn-app-miniapp-'));
}, 120_000);

afterAll(async () => {
  await session?.close();
  rmSync(miniapp, { recursive: true, force: true });
});

describe('cloudfn client at an app root', () => {
  it('writes one file, one entry per service, that type-checks alone and reaches both services through createCloud', async () => {
    const file = join(miniapp, 'api.ts');
    const run = spawnSync(process.execPath, [CLI, 'client', APP, '--out', file], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("left out: rank/add_score (only other services call it (config.client 'inner-call'))");
    const source = readFileSync(file, 'utf8');
    expect(source.match(/^\s*import\b/gm)).toBeNull();
    expect(source.match(/class FunctionCallError/g)).toHaveLength(1);
    expect(source).toContain('top(...args: Args<RankTopParams>): Promise<RankTopResult>;');
    expect(source).toContain('get_profile(...args: Args<ProfileGetProfileParams>): Promise<ProfileGetProfileResult>;');
    expect(source).not.toContain('add_score');

    // A mini-program's folder: its page, the client, TypeScript and nothing else.
    writeFileSync(
      join(miniapp, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2020',
          lib: ['ES2020'],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ['page.ts', 'api.ts'],
      }),
    );
    writeFileSync(
      join(miniapp, 'page.ts'),
      `import { createClient, type CloudFactory } from './api';
declare const tt: CloudFactory;
const api = createClient(tt, { envID: 'env-1' });
export async function show(): Promise<number> {
  const board = await api.rank.top({ limit: 2 });
  const card = await api.profile.get_profile({ openid: 'ada' });
  return board.top[0]!.score + card.added;
}
`,
    );
    const checked = spawnSync(process.execPath, [TSC, '-p', miniapp], { encoding: 'utf8', cwd: miniapp });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);

    // The same file, run: every service reached through one dev URL (rank's).
    const { createClient } = (await import(file)) as {
      createClient(
        tt: { createCloud: typeof createCloud },
        options: { envID: string },
      ): {
        rank: { top(params: { limit: number }): Promise<{ service: string; top: unknown[] }> };
        profile: { get_profile(params: { openid: string }): Promise<{ service: string; added: number }> };
      };
    };
    const api = createClient(
      { createCloud: (options) => createCloud({ ...options, baseUrl: rankUrl }) },
      { envID: 'dev' },
    );
    const board = await api.rank.top({ limit: 2 });
    expect(board).toEqual({
      service: 'rank',
      top: [
        { openid: 'ada', score: 30 },
        { openid: 'bob', score: 20 },
      ],
    });
    const card = await api.profile.get_profile({ openid: 'ada' });
    expect(card).toEqual({ service: 'profile', openid: 'ada', added: 5 });
  }, 240_000);
});

describe('an app root cloudfn client cannot read', () => {
  it.each([
    ['"rank"', '"services" must be a non-empty array of folders, got "rank"'],
    ['["rank", "shop"]', 'the service folder "shop" does not exist'],
  ])('refuses services %s in one line naming it', (services, message) => {
    const root = mkdtempSync(join(tmpdir(), 'cloudfn-app-root-'));
    try {
      writeFileSync(join(root, 'cloudfn.config.json'), `{ "services": ${services} }`);
      mkdirSync(join(root, 'rank'));
      const run = spawnSync(process.execPath, [CLI, 'client', root, '--out', join(root, 'api.ts')], {
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the dev gateway's failures, in the platform's envelope and the client's fail", () => {
  it('answers an unknown serviceID 13005: HTTP 200, status_code, status_message, logid', async () => {
    const res = await fetch(`${rankUrl}/top`, { headers: { 'x-cloudfn-service': 'billing' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-status-code')).toBe('13005');
    const body = (await res.json()) as { status_code: number; status_message: string; logid: string };
    expect(body.status_code).toBe(13005);
    expect(body.status_message).toContain('"billing" is not a service of this session (rank, profile)');
    expect(body.logid).toMatch(/^[0-9a-f]{24}$/);
    expect(res.headers.get('x-tt-logid')).toBe(body.logid);

    const failure = await failureOf('billing', '/top');
    expect(failure.errNo).toBe(21102);
    expect(failure.code).toBe(13005);
    const [, message, code, logid] = ERR_MSG.exec(failure.errMsg) ?? [];
    expect(message).toMatch(/^service not found: "billing"/);
    expect(code).toBe('13005');
    expect(logid).toBe(failure.logid);
    expect(logid).toMatch(/^[0-9a-f]{24}$/);
    await expect(
      createCloud({ envID: 'dev', serviceID: 'billing', baseUrl: rankUrl }).callContainer({ path: '/top' }),
    ).rejects.toMatchObject({
      name: 'CloudCallError',
      code: 13005,
      errNo: 21102,
    });
  });

  it("answers a body over profile's gatewayLimits.maxBodySize 14021, and one within it from the function", async () => {
    const big = { openid: 'x'.repeat(400) };
    const failure = await failureOf('profile', '/get_profile', { method: 'POST', body: big });
    expect(failure).toMatchObject({ errNo: 21102, code: 14021 });
    expect(failure.errMsg).toMatch(/^callContainer:request body limited, code=14021, logid=[0-9a-f]{24}$/);
    const res = await fetch(`${rankUrl}/get_profile`, {
      method: 'POST',
      headers: { 'x-cloudfn-service': 'profile', 'content-type': 'application/json' },
      body: JSON.stringify(big),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status_code: 14021, status_message: 'request body limited' });
    const small = await createCloud({ envID: 'dev', serviceID: 'profile', baseUrl: rankUrl }).callContainer({
      path: '/get_profile',
      init: { method: 'POST', body: { openid: 'ada' } },
    });
    expect(small.statusCode).toBe(200);
    expect(small.data).toEqual({ service: 'profile', openid: 'ada', added: 5 });
    expect(output).toMatch(
      /gateway 14021: request body limited: \d+ bytes, over gatewayLimits\.maxBodySize 256 of service profile/,
    );
  });

  it('fails with 21100 network error when nothing answers at the base URL', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const failure = await new Promise<CloudFailure>((resolve) =>
      createCloud({ envID: 'dev', serviceID: 'rank', baseUrl: `http://127.0.0.1:${port}` }).callContainer({
        path: '/top',
        fail: resolve,
      }),
    );
    expect(failure.errNo).toBe(21100);
    expect(failure.code).toBe(21100);
    expect(failure.logid).toBe('');
    expect(failure.errMsg).toMatch(/^callContainer:network error \(.*ECONNREFUSED.*\), code=21100, logid=$/);
  });

  // Last: it spends profile's calls for the second.
  it("answers calls over profile's gatewayLimits.qps 14010, in the envelope and the client's fail", async () => {
    const cloud = createCloud({ envID: 'dev', serviceID: 'profile', baseUrl: rankUrl });
    // 30 calls at once: however slowly they arrive, no second lets more than 5 through.
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        cloud.callContainer({ path: '/get_profile', init: { method: 'POST', body: { openid: 'ada' } } }).then(
          (response) => ({ ok: response.statusCode }),
          (error: CloudFailure) => ({ failed: error }),
        ),
      ),
    );
    const refused = results.flatMap((result) => ('failed' in result ? [result.failed] : []));
    const passed = results.filter((result) => 'ok' in result);
    expect(refused.length).toBeGreaterThan(0);
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.every((result) => 'ok' in result && result.ok === 200)).toBe(true);
    for (const failure of refused) {
      expect(failure).toMatchObject({ errNo: 21102, code: 14010 });
      expect(failure.errMsg).toMatch(/^callContainer:request qps limited, code=14010, logid=[0-9a-f]{24}$/);
    }
  });
});
