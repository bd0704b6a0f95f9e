/**
 * The Redis client in what `cloudfn build` makes: ioredis is bundled into a chunk, so a bundle
 * folder copied where no node_modules exist serves a fleet (a signed callback's nonce claimed
 * in a real redis-server, a replay refused); a build where it cannot be resolved warns and
 * leaves it external; and a process whose Redis setting cannot load its client refuses to
 * start with one line, `cloudfn start` and bundles alike.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, checkBundle, type BuildResult } from '../../src/build/index.js';
import { redisClient } from '../../src/build/redis-client.js';
import { signCallback } from '../../src/sign/index.js';
import { hasRedis, RedisServer } from '../fleet/redis-server.js';
import { tempProject } from '../testing/project.js';
import { spawnServer } from './spawn-server.js';
import { CALLBACK_FN } from '../fleet/callback-function.js';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

const project = tempProject({
  'functions/callback.ts': CALLBACK_FN,
});
let result: BuildResult;

beforeAll(async () => {
  result = await buildProject(project.root, { sourcemap: false, server: false, perFunction: true });
}, 60_000);
afterAll(() => project.remove());

/**
 * Makes `import('ioredis')` fail, as where the package is missing (a Node resolve hook: in-thread
 * with `registerHooks` where Node has it, since Node 26 warns on stderr for `register`).
 */
const NO_IOREDIS = `--import=data:text/javascript,${encodeURIComponent(
  `import * as m from 'node:module';
const gone = 'if (s === "ioredis") throw new Error("Cannot find package \\'ioredis\\'"); return next(s, c);';
if (typeof m.registerHooks === 'function') m.registerHooks({ resolve: new Function('s', 'c', 'next', gone) });
else m.register('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, next) { ' + gone + ' }'));`,
)}`;

describe('the Redis client in bundles', () => {
  it('is in a chunk, so a copied bundle folder claims nonces in Redis and refuses a replay', async () => {
    expect(result.warnings).toEqual([]);
    const b = result.bundles.find((x) => x.name === 'callback')!;
    expect(readFileSync(b.file, 'utf8')).not.toContain('node_modules/ioredis/');
    expect(b.chunks.map((file) => readFileSync(file, 'utf8')).join('\n')).toContain('node_modules/ioredis/');
    if (!hasRedis) return;
    const redis = new RedisServer();
    await redis.start();
    const alone = mkdtempSync(join(tmpdir(), 'cloudfn-redis-bundle-'));
    try {
      cpSync(join(project.root, 'dist/callback'), alone, { recursive: true });
      const server = await spawnServer(['index.mjs'], {
        cwd: alone,
        env: { CLOUDFN_REDIS_URL: redis.url, PLATFORM_PUBLIC_KEY: publicPem },
      });
      try {
        const body = '{"event":"upload.finished","n":1}';
        const headers = { 'content-type': 'application/json', ...signCallback({ privateKey, body }) };
        const first = await fetch(`${server.url}/callback`, { method: 'POST', body, headers });
        expect(first.status).toBe(200);
        const replay = await fetch(`${server.url}/callback`, { method: 'POST', body, headers });
        expect(replay.status).toBe(401);
        expect(await replay.text()).toContain('SIGN_REPLAY');
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      rmSync(alone, { recursive: true, force: true });
      await redis.stop();
    }
  }, 30_000);

  it('refuses to start a bundle whose client cannot load, with one line, and --check says the same', async () => {
    const alone = mkdtempSync(join(tmpdir(), 'cloudfn-redis-missing-'));
    const saved = process.env['CLOUDFN_REDIS_URL'];
    try {
      cpSync(join(project.root, 'dist/callback'), alone, { recursive: true });
      // A folder copied without the chunk that holds the client (unminified: comments name it).
      const b = result.bundles.find((x) => x.name === 'callback')!;
      const client = b.chunks.find((file) => readFileSync(file, 'utf8').includes('node_modules/ioredis/'))!;
      rmSync(join(alone, client.slice(join(project.root, 'dist/callback').length)));
      const started = spawnSync(process.execPath, ['index.mjs'], {
        cwd: alone,
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CLOUDFN_REDIS_URL: 'redis://127.0.0.1:1/0' },
      });
      expect(started.status).toBe(1);
      expect(started.stderr).toMatch(
        /^cloudfn: FLEET_NO_CLIENT: CLOUDFN_REDIS_URL is set but the Redis client could not be loaded \(.*\); install it with npm install ioredis\n$/,
      );
      expect(started.stdout).not.toContain('listening on');
      process.env['CLOUDFN_REDIS_URL'] = 'redis://127.0.0.1:1/0';
      const check = await checkBundle(join(alone, 'index.mjs'));
      expect(check.ok).toBe(false);
      expect(check.problem).toContain('cloudfn: FLEET_NO_CLIENT: CLOUDFN_REDIS_URL is set');
    } finally {
      if (saved === undefined) delete process.env['CLOUDFN_REDIS_URL'];
      else process.env['CLOUDFN_REDIS_URL'] = saved;
      rmSync(alone, { recursive: true, force: true });
    }
  }, 30_000);

  it('stays external with one warning when it cannot be resolved', async () => {
    const warnings: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'cloudfn-no-ioredis-'));
    try {
      const out = await build({
        stdin: {
          contents: "export const a = () => import('ioredis'); export const b = () => import('ioredis');",
          resolveDir: dir,
        },
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'node',
        plugins: [redisClient((m) => warnings.push(m))],
        logLevel: 'silent',
      });
      expect(out.outputFiles[0]!.text).toContain('import("ioredis")');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^ioredis is not installed.*refuse to start \(FLEET_NO_CLIENT\); npm install ioredis/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a Redis setting whose client cannot load', () => {
  const env = { ...process.env, NODE_OPTIONS: NO_IOREDIS, CLOUDFN_REDIS_URL: 'redis://127.0.0.1:1/0', PORT: '0' };
  const refusal =
    /^cloudfn: FLEET_NO_CLIENT: CLOUDFN_REDIS_URL is set but the Redis client could not be loaded \(Cannot find package 'ioredis'\); install it with npm install ioredis\n$/;

  it('stops cloudfn start with one line and exit code 1, before the port opens', () => {
    const run = spawnSync(process.execPath, [cli, 'start', project.root, '--host', '127.0.0.1'], {
      encoding: 'utf8',
      timeout: 20_000,
      env,
    });
    expect(run.stderr).toMatch(refusal);
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain('listening on');
  });

  it('starts cloudfn start when no Redis setting is given, the same hook in place', async () => {
    const server = await spawnServer([cli, 'start', project.root], {
      cwd: project.root,
      env: { NODE_OPTIONS: NO_IOREDIS, CLOUDFN_REDIS_URL: '' },
    });
    expect(await server.stop()).toBe(0);
  });
});
