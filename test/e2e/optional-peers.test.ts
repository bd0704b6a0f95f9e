/**
 * prom-client and ioredis are optional peer dependencies: a project that installed cloudfn
 * without them (a copy of this package whose node_modules holds every dependency but those two)
 * still runs `cloudfn dev`, and the features that need them say in one line what to install.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
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
  expect(Object.keys(manifest.peerDependencies ?? {})).toEqual(expect.arrayContaining(['prom-client', 'ioredis']));
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
    console.log(JSON.stringify({ hello, warnings: records.filter((r) => r.level === 'warn').map((r) => r.msg), metrics, redis }));
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
}, 90_000);
