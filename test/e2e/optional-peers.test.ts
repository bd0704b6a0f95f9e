/**
 * prom-client, ioredis and mingo are optional peer dependencies: a project that installed
 * cloudfn without them (a copy of this package whose node_modules holds every dependency but
 * those) still runs `cloudfn dev` and builds the SDK stand-in into its bundles, and the
 * features that need them say in one line what to install.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnServer } from '../build/spawn-server.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { installCopy } from '../testing/installed-copy.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

it('runs dev without prom-client and names the package a feature needs', () => {
  ensureDist();
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-peers-'));
  temps.push(root);
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  expect(Object.keys(manifest.dependencies)).not.toContain('prom-client');
  expect(Object.keys(manifest.dependencies)).not.toContain('mingo');
  expect(Object.keys(manifest.peerDependencies ?? {})).toEqual(
    expect.arrayContaining(['prom-client', 'ioredis', 'mingo']),
  );
  const installed = installCopy(root);
  mkdirSync(join(root, 'functions'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
  writeFileSync(join(root, 'functions', 'hello.js'), 'export default () => ({ hello: "world" });\n');
  const script = `
    const dist = ${JSON.stringify(join(installed, 'dist'))};
    const { startDevServer } = await import(dist + '/src/dev/index.js');
    const records = [];
    const dev = await startDevServer({ root: ${JSON.stringify(root)}, port: 0, sink: { write: (r) => void records.push(r) } });
    const hello = await (await fetch(dev.url + '/hello')).json();
    await dev.close();
    const { importMetrics } = await import(dist + '/runtime/serve/import-metrics.js');
    const metrics = await importMetrics().then(() => 'loaded', (e) => e.code + ': ' + e.message);
    const { redisClient } = await import(dist + '/src/fleet/connect.js');
    const redis = await redisClient({ url: 'redis://127.0.0.1:1', source: 'CLOUDFN_REDIS_URL' }).then(() => 'loaded', (e) => e.code + ': ' + e.message);
    const { dySDK } = await import(dist + '/src/platform/sdk/index.js');
    const database = await dySDK.database().collection('scores').count().then(() => 'loaded', (e) => e.code + ': ' + e.message);
    console.log(JSON.stringify({ hello, warnings: records.filter((r) => r.level === 'warn').map((r) => r.msg), metrics, redis, database }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(result['hello']).toEqual({ hello: 'world' });
  expect(result['metrics']).toMatch(
    /^CLOUDFN_METRICS_UNAVAILABLE: metrics are on but cannot be loaded \(.*prom-client.*\); install prom-client/,
  );
  // Metrics were not asked for: the dev server starts without a word about prom-client.
  expect(result['warnings']).toEqual([]);
  expect(result['redis']).toMatch(
    /^FLEET_NO_CLIENT: CLOUDFN_REDIS_URL is set but the Redis client could not be loaded \(.*ioredis.*\); install it with npm install ioredis$/,
  );
  expect(result['database']).toMatch(NO_MINGO);
}, 90_000);

/** The one line of PLATFORM_SDK_NO_MINGO, with its code. */
const NO_MINGO =
  /^PLATFORM_SDK_NO_MINGO: the stand-in's database\(\) runs its queries with mingo, which cannot be loaded \([^\n]*mingo[^\n]*\); install it with npm install mingo$/;

it('bundles the SDK stand-in without mingo: the build passes, and database() names npm install mingo', async () => {
  ensureDist();
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-peers-build-'));
  temps.push(root);
  const installed = installCopy(root);
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
  writeFileSync(join(root, 'cloudfn.config.json'), '{ "functionsDir": ".", "sdk": "stand-in" }');
  writeFileSync(
    join(root, 'scores.js'),
    `import { dySDK } from '@open-dy/node-server-sdk';
export default async (_params, service) => {
  const openId = dySDK.context(service).getContext().openId ?? null;
  try {
    return { openId, total: (await dySDK.database().collection('scores').count()).total };
  } catch (error) {
    return { openId, failed: error.code + ': ' + error.message };
  }
};
`,
  );
  const built = spawnSync(process.execPath, [join(installed, 'dist/src/cli/index.js'), 'build', '--no-typecheck'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(built.status, built.stderr).toBe(0);
  // Run from a folder with nothing but the bundles, as an image's run stage has it.
  const image = mkdtempSync(join(tmpdir(), 'cloudfn-peers-image-'));
  temps.push(image);
  cpSync(join(root, 'dist'), join(image, 'dist'), { recursive: true });
  const server = await spawnServer(['dist/server.mjs'], { cwd: image, env: { CLOUDFN_TRUST_GATEWAY_HEADERS: 'true' } });
  try {
    const answer = await fetch(`${server.url}/scores`, { headers: { 'x-tt-openid': 'ann' } });
    const body = (await answer.json()) as { openId: string; failed: string };
    // getContext() needs no mingo; the database names the one package to install.
    expect(body.openId).toBe('ann');
    expect(body.failed).toMatch(NO_MINGO);
  } finally {
    await server.stop();
  }
}, 90_000);
