/**
 * What `--check` of the function-service target runs, under a real Node 14 (issue 53): the
 * platform's environment (`SERVICE_ID`, `CLOUD_ENV`, a component's variables), inner calls
 * answered by a sibling service's built file, by a real server named in
 * `CLOUDFN_INNER_CALL_<ID>`, or by the stand-in, the caller's `innerCall` enforced, a timer
 * checked through its trigger, and a process held open by a Redis connection stopped and named.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFunctionService,
  checkFunctionService,
  findCheckNode,
  formatCheckTable,
  type FunctionServiceCheckResult,
} from '../../src/build/function-service/index.js';
import { checkPlatform } from '../../src/platform/services/check-setup.js';
import { tempProject } from '../testing/project.js';

const node = findCheckNode(process.cwd());
if (!node.platformVersion && process.env.CI === 'true')
  throw new Error('Node 14 is missing under CI: run node test/setup/node14.mjs');

/** A GET to another service's inner-call host through node:http, as any client on it sends. */
const CALL = `import { get } from 'node:http';
export function call(target: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(\`http://\${process.env.SERVICE_ID}-\${target}.inner-call.dyc.ivolces.com\${path}\`, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}
`;

const app = mkdtempSync(join(tmpdir(), 'cloudfn-check-app-'));
let profile: Server;
let redis: ChildProcess;
let redisPort: number;
let result: FunctionServiceCheckResult;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  if (!node.platformVersion) return;
  redisPort = await freePort();
  redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  profile = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        openid: new URL(req.url ?? '/', 'http://x').searchParams.get('openid'),
        host: req.headers.host,
      }),
    );
  });
  await new Promise<void>((resolve) => profile.listen(0, '127.0.0.1', resolve));

  const rank = tempProject(
    {
      'cloudfn.config.json': JSON.stringify({ serviceId: 'rank' }),
      'functions/top.ts': `export default (params: { n?: string }) => ({ top: ['ada', 'bob', 'cy'].slice(0, Number(params.n ?? 3)), me: process.env.SERVICE_ID });`,
    },
    app,
  );
  await buildFunctionService(rank.root);
  const game = tempProject(
    {
      'cloudfn.config.json': JSON.stringify({
        serviceId: 'game',
        innerCall: ['rank', 'profile', 'ghost'],
        components: { redis: `redis://127.0.0.1:${redisPort}` },
      }),
      'functions/_lib/call.ts': CALL,
      'functions/whoami.ts': `export default () => {
  if (process.env.SERVICE_ID !== 'game' || process.env.CLOUD_ENV !== 'DEV') throw new Error('SERVICE_ID is ' + process.env.SERVICE_ID);
  return { id: process.env.SERVICE_ID, env: process.env.CLOUD_ENV };
};`,
      'functions/ranked.ts': `import { call } from './_lib/call.js';
export default async () => {
  const got = await call('rank', '/top?n=2');
  const body = JSON.parse(got.body);
  if (got.status !== 200 || body.top.join() !== 'ada,bob' || body.me !== 'rank') throw new Error('rank answered ' + got.status + ' ' + got.body);
  return body;
};`,
      'functions/profiled.ts': `import { call } from './_lib/call.js';
export default async () => {
  const got = await call('profile', '/get_profile?openid=o1');
  const body = JSON.parse(got.body);
  if (body.openid !== 'o1' || body.host !== 'game-profile.inner-call.dyc.ivolces.com') throw new Error('profile answered ' + got.body);
  return body;
};`,
      'functions/ghostly.ts': `import { call } from './_lib/call.js';
export default async () => ({ ghost: (await call('ghost', '/boo')).status });`,
      'functions/secret.ts': `import { call } from './_lib/call.js';
export default async () => ({ secret: (await call('vault', '/keys')).status });`,
      'functions/settle.ts': `import { HttpError, type Handler } from 'cloudfn';
export const config = { schedule: { cron: '0 */5 * * * *', params: { room: 'all' } } };
const settle: Handler<{ room?: string }> = (params, service) => {
  if (service.trigger !== 'timer') throw new HttpError(403, 'timers only');
  if (params.room !== 'all') throw new Error('params are ' + JSON.stringify(params));
  return { settled: params.room };
};
export default settle;`,
      'functions/hold.ts': `import { connect, type Socket } from 'node:net';
let socket: Socket | undefined;
export default () => new Promise((resolve, reject) => {
  const [host, port] = (process.env.REDIS_ADDRESS ?? '').split(':');
  socket = connect(Number(port), host);
  socket.once('error', reject);
  socket.once('data', (data) => resolve({ redis: data.toString().trim() }));
  socket.write('PING\\r\\n');
});`,
    },
    app,
  );
  const built = await buildFunctionService(game.root);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLOUDFN_INNER_CALL_PROFILE: `http://127.0.0.1:${(profile.address() as AddressInfo).port}`,
  };
  delete env.CLOUD_ENV;
  result = await checkFunctionService(game.root, built.files, {
    node,
    env,
    platform: await checkPlatform(game.root, env),
    timers: [{ function: 'settle', params: { room: 'all' } }],
  });
}, 120_000);

afterAll(() => {
  profile?.close();
  redis?.kill();
  rmSync(app, { recursive: true, force: true });
});

const row = (path: string) => result.checks.find((c) => c.path === path)!;

describe.skipIf(!node.platformVersion)('--check under Node 14', () => {
  it('sets SERVICE_ID from serviceId and CLOUD_ENV=DEV', () => {
    expect(row('whoami.js')).toMatchObject({ ok: true, status: 200 });
  });

  it("answers an inner call with the sibling service's own built file", () => {
    expect(row('ranked.js')).toMatchObject({ ok: true, status: 200 });
    expect(row('ranked.js').notes?.join('\n')).toMatch(
      /GET http:\/\/game-rank\.inner-call\.dyc\.ivolces\.com\/top\?n=2: answered 200 by .*top\.js/,
    );
  });

  it('answers an inner call from CLOUDFN_INNER_CALL_<ID>, with the Host header unchanged', () => {
    expect(row('profiled.js')).toMatchObject({ ok: true, status: 200 });
    expect(row('profiled.js').notes?.join('\n')).toContain('(innerCallUrls)');
  });

  it('answers an enabled target with nowhere to go with the stand-in, and says so', () => {
    expect(row('ghostly.js')).toMatchObject({ ok: true, status: 200 });
    expect(row('ghostly.js').notes?.join('\n')).toContain('answered by a stand-in (200, {})');
  });

  it("refuses a target the caller's innerCall does not enable, naming the fix", () => {
    const secret = row('secret.js');
    expect(secret.ok).toBe(false);
    expect(secret.problem).toContain('"vault" is not enabled for "game"; add "vault" to innerCall');
  });

  it('checks a timer function through its trigger, with its schedule params', () => {
    expect(row('settle.js')).toMatchObject({ ok: true, status: 200 });
  });

  it('stops a process held open by a Redis connection after the bound, and names the connection', () => {
    const hold = row('hold.js');
    expect(hold).toMatchObject({ ok: true, status: 200 });
    expect(hold.notes?.join('\n')).toContain(
      `did not exit within 2000 ms and was stopped: a socket to 127.0.0.1:${redisPort} (Redis, REDIS_ADDRESS)`,
    );
    // Stopped at the bound, not at the 30 s timeout.
    expect(hold.ms).toBeLessThan(15_000);
  });

  it('prints the hint about the default GET only when a file without checkRequests failed', () => {
    const table = formatCheckTable(result.node, result.checks);
    // secret.js failed and had no entry: the hint is there.
    expect(table).toContain('Each file without a checkRequests entry got a GET');
    const requested = result.checks.map((c) => (c.ok ? c : { ...c, requested: true }));
    expect(formatCheckTable(result.node, requested)).not.toContain('got a GET of its path');
  });
});
