/**
 * An app of three services made by `cloudfn init --services`, with the built CLI and real
 * engines (redis-server, mariadbd): the data written in one run (a document, a Redis key with a
 * TTL, a MySQL row) is there whichever services run next and in whatever order, and from inside
 * a service folder; `db export` inside a service writes all three, `db reset --yes` empties all
 * three, `db import` brings them back; a bad file is refused whole, an older documents-only file
 * still imports, Mongo given by URL is left alone; `dev --ephemeral --seed` leaves nothing in
 * `.cloudfn/`; `cloudfn build` at the root builds every service into one table. The last block,
 * marked SLOW, runs `npm install` (offline-capable: cloudfn comes from the app's vendor/) and the
 * root's `npm test`.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../src/app/data/resp.js';
import { ensureDist } from '../testing/ensure-dist.js';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const engines =
  spawnSync('sh', ['-c', 'command -v redis-server && command -v mariadbd && command -v mariadb-dump']).status === 0;

const NOTE = `import { dySDK } from '@open-dy/node-server-sdk';
export default async function (params: { text?: string }, service: { httpMethod: string }) {
  const notes = dySDK.database().collection('notes');
  if (service.httpMethod === 'POST') return notes.add({ text: params.text });
  return (await notes.get()).data;
}
`;

function cloudfn(cwd: string, args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
}

interface Dev {
  child: ChildProcess;
  out: () => string;
  /** Each service's URL, by id. */
  urls: Record<string, string>;
}

/** Starts `cloudfn dev <args>` in `cwd` and waits until `count` servers serve. */
async function startDev(cwd: string, args: string[], count: number): Promise<Dev> {
  const child = spawn(process.execPath, [cli, 'dev', '--port', '0', '--no-typecheck', ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const urls: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not serving after 90 s: ${out}`)), 90_000);
    child.on('exit', (code) => reject(new Error(`dev exited ${code}: ${out}`)));
    const read = (chunk: Buffer): void => {
      out += chunk.toString();
      const serving = [...out.matchAll(/^(?:(\S+)\s+│ )?.*dev server on (http:\/\/\S+) with/gm)];
      for (const m of serving) urls[m[1] ?? 'self'] = m[2]!;
      if (serving.length >= count) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
  return { child, out: () => out, urls };
}

async function stop(dev: Dev | undefined): Promise<void> {
  if (dev === undefined || dev.child.exitCode !== null) return;
  const exited = new Promise((resolve) => dev.child.once('exit', resolve));
  dev.child.kill('SIGTERM');
  await exited;
}

describe.skipIf(!engines)('an app of three services (init --services, real Redis and MariaDB)', () => {
  const work = mkdtempSync(join(tmpdir(), 'cloudfn-app-e2e-'));
  const app = join(work, 'shop');
  const profile = join(app, 'profile');
  let dev: Dev | undefined;

  /** The URL of a local component of the app, from its account and the running server's record. */
  const componentUrl = (name: 'redis' | 'mysql'): string => {
    const dir = join(app, '.cloudfn', 'components', name);
    const account = JSON.parse(readFileSync(join(dir, 'account.json'), 'utf8')) as { user: string; password: string };
    const { port } = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as { port: number };
    return `${name}://${account.user}:${encodeURIComponent(account.password)}@127.0.0.1:${port}`;
  };
  const sql = (query: string): string => {
    const url = new URL(componentUrl('mysql'));
    return execFileSync(
      'mariadb',
      ['--no-defaults', '-h127.0.0.1', `-P${url.port}`, `-u${url.username}`, '-N', '-B', '-e', query],
      {
        env: { ...process.env, MYSQL_PWD: decodeURIComponent(url.password) },
        encoding: 'utf8',
      },
    ).trim();
  };
  const redis = async <T>(work: (r: RedisConnection) => Promise<T>): Promise<T> => {
    const connection = await RedisConnection.open(componentUrl('redis'));
    try {
      return await work(connection);
    } finally {
      connection.close();
    }
  };
  const notes = async (url: string): Promise<string[]> =>
    ((await (await fetch(`${url}/note`)).json()) as { text: string }[]).map((n) => n.text);

  beforeAll(() => {
    ensureDist();
    const made = cloudfn(work, ['init', 'shop', '--services', 'game,rank,profile']);
    expect(made.status, made.stderr).toBe(0);
    writeFileSync(join(app, 'rank', 'cloudfn.config.json'), JSON.stringify({ components: { redis: true } }));
    writeFileSync(
      join(profile, 'cloudfn.config.json'),
      JSON.stringify({ components: { mysql: true, mongo: 'mongodb://u:p@mongo.example:27017' } }),
    );
    writeFileSync(join(profile, 'functions', 'note.ts'), NOTE);
  }, 180_000);
  afterAll(async () => {
    await stop(dev);
    rmSync(work, { recursive: true, force: true });
  });

  it('sees the data of one run after `cloudfn dev rank profile game` and after dev inside profile/', async () => {
    dev = await startDev(app, [], 3);
    expect(Object.keys(dev.urls).sort()).toEqual(['game', 'profile', 'rank']);
    await fetch(`${dev.urls['profile']}/note`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'first run' }),
    });
    await redis((r) => r.send('SET', 'rank:top', 'ada', 'PX', 3_600_000));
    sql(
      "CREATE DATABASE shop; CREATE TABLE shop.users (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO shop.users VALUES (1, 'ada')",
    );
    await stop(dev);

    dev = await startDev(app, ['rank', 'profile', 'game'], 3);
    expect(dev.out()).toContain(`data in ${join(app, '.cloudfn', 'components', 'redis')}`);
    expect(await notes(dev.urls['profile']!)).toEqual(['first run']);
    expect(String(await redis((r) => r.send('GET', 'rank:top')))).toBe('ada');
    expect(sql('SELECT name FROM shop.users WHERE id = 1')).toBe('ada');
    await stop(dev);

    dev = await startDev(profile, [], 1);
    expect(await notes(dev.urls['self']!)).toEqual(['first run']);
    expect(sql('SELECT name FROM shop.users WHERE id = 1')).toBe('ada');
    await stop(dev);
    dev = undefined;
  }, 300_000);

  it('exports all three inside profile/, empties all three with reset --yes, and imports them back', async () => {
    const exported = cloudfn(profile, ['db', 'export', '../backup.json']);
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('mongo: given by URL (mongo.example:27017), your own server: left alone');
    expect(exported.stderr).toContain('exported notes (1); redis: 1 key; mysql: shop from');
    const backup = JSON.parse(readFileSync(join(app, 'backup.json'), 'utf8')) as {
      $cloudfn: string;
      documents: { notes: { text: string }[] };
      redis: { key: string; type: string; value: string; ttlMs: number }[];
      mysql: { databases: string[]; sql: string };
    };
    expect(backup.$cloudfn).toBe('data/1');
    expect(backup.documents.notes.map((n) => n.text)).toEqual(['first run']);
    expect(backup.redis).toEqual([{ db: 0, key: 'rank:top', type: 'string', value: 'ada', ttlMs: expect.any(Number) }]);
    expect(backup.redis[0]!.ttlMs).toBeGreaterThan(60_000);
    expect(backup.redis[0]!.ttlMs).toBeLessThanOrEqual(3_600_000);
    expect(backup.mysql.databases).toEqual(['shop']);
    expect(backup.mysql.sql).toContain("(1,'ada')");

    const reset = cloudfn(profile, ['db', 'reset', '--yes']);
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stderr).toContain('removed notes from');
    const empty = JSON.parse(cloudfn(app, ['db', 'export']).stdout) as Record<string, unknown>;
    expect(empty).toEqual({ $cloudfn: 'data/1', documents: {}, redis: [], mysql: { databases: [], sql: '' } });

    const imported = cloudfn(profile, ['db', 'import', '../backup.json']);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('imported notes (1); redis: 1 key; mysql: shop into');
    const back = JSON.parse(cloudfn(join(app, 'rank'), ['db', 'export']).stdout) as typeof backup;
    expect(back.documents.notes.map((n) => n.text)).toEqual(['first run']);
    expect(back.redis[0]).toMatchObject({ key: 'rank:top', value: 'ada' });
    expect(back.redis[0]!.ttlMs).toBeGreaterThan(60_000);
    expect(back.mysql.sql).toContain("(1,'ada')");
  }, 300_000);

  it('refuses a bad file in one line and writes nothing; imports an older documents-only file', () => {
    writeFileSync(
      join(app, 'bad.json'),
      JSON.stringify({
        $cloudfn: 'data/1',
        documents: { extra: [{ _id: 'x' }] },
        redis: [{ db: 0, key: 'k', type: 'string', value: 'v', ttlMs: 'soon' }],
      }),
    );
    const bad = cloudfn(app, ['db', 'import', 'bad.json']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      'cloudfn: bad.json: redis key "k": ttlMs must be a whole number of ms, or null for a key that never expires, got "soon"; nothing was written\n',
    );
    expect(existsSync(join(app, '.cloudfn', 'platform', 'database', 'extra.json'))).toBe(false);

    writeFileSync(join(app, 'old.json'), JSON.stringify({ older: [{ _id: 'o1', text: 'documents only' }] }));
    const old = cloudfn(app, ['db', 'import', 'old.json']);
    expect(old.status, old.stderr).toBe(0);
    expect(old.stderr).toContain('imported older (1)');
  }, 120_000);

  it('runs --ephemeral --seed from the export and leaves no data in .cloudfn/ when it stops', async () => {
    expect(cloudfn(app, ['db', 'reset', '--yes']).status).toBe(0);
    const before = readdirSync(join(app, '.cloudfn', 'platform', 'database')).sort();
    dev = await startDev(app, ['--ephemeral', '--seed', 'backup.json'], 3);
    const folder = /an ephemeral store in (\S+), removed at exit/.exec(dev.out())?.[1];
    expect(folder).toBeDefined();
    expect(dev.out()).toContain('components: seeded redis: 1 key; mysql: shop from backup.json');
    expect(dev.out()).toContain(`data in ${join(folder!, 'components', 'redis')}`);
    expect(await notes(dev.urls['profile']!)).toEqual(['first run']);
    await fetch(`${dev.urls['profile']}/note`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'ephemeral' }),
    });
    await stop(dev);
    dev = undefined;
    expect(existsSync(folder!)).toBe(false);
    expect(readdirSync(join(app, '.cloudfn', 'platform', 'database')).sort()).toEqual(before);
    const after = JSON.parse(cloudfn(app, ['db', 'export']).stdout) as Record<string, unknown>;
    expect(after).toEqual({ $cloudfn: 'data/1', documents: {}, redis: [], mysql: { databases: [], sql: '' } });
  }, 300_000);

  it('builds every service at the root into its own dist/, in one table; a failing one stops none', () => {
    // profile imports the server SDK without "sdk": its build fails, the others are built.
    const failed = cloudfn(app, ['build', '--no-typecheck']);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/^game\s+game\/dist\s+\d+.*\s+ok$/m);
    expect(failed.stdout).toMatch(/^profile\s+profile\/dist\s+0\s+0\.0 KB\s+[\d.]+ s\s+FAILED$/m);
    expect(failed.stdout).toContain(
      'profile (cloudfn build in profile):\ncloudfn: functions/note.ts import @open-dy/node-server-sdk',
    );
    expect(failed.stdout).toContain('1 of 3 services failed');
    const config = JSON.parse(readFileSync(join(profile, 'cloudfn.config.json'), 'utf8')) as object;
    writeFileSync(join(profile, 'cloudfn.config.json'), JSON.stringify({ ...config, sdk: 'stand-in' }));
    const built = cloudfn(app, ['build', '--no-typecheck']);
    expect(built.status, built.stdout + built.stderr).toBe(0);
    expect(built.stdout).toMatch(/^service\s+output\s+files\s+size\s+time\s+result\n/);
    for (const name of ['game', 'rank', 'profile']) {
      expect(built.stdout).toMatch(
        new RegExp(`^${name}\\s+${name}/dist\\s+\\d+\\s+[\\d.]+ KB\\s+[\\d.]+ s\\s+ok$`, 'm'),
      );
      expect(existsSync(join(app, name, 'dist', 'server.mjs'))).toBe(true);
    }
    expect(built.stdout).toContain('built 3 services');
  }, 300_000);

  // SLOW (about a minute on a shared machine): one `npm install` at the root, offline-capable
  // since cloudfn comes from the app's vendor/ and the rest from npm's cache.
  it('SLOW: one npm install at the root, then the root npm test runs every service test', () => {
    const install = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 600_000,
    });
    expect(install.status, install.stderr).toBe(0);
    expect(readdirSync(join(app, 'node_modules', '.bin'))).toEqual(expect.arrayContaining(['cloudfn', 'vitest']));
    for (const name of ['game', 'rank', 'profile'])
      expect(existsSync(join(app, name, 'node_modules', 'cloudfn'))).toBe(false);
    const test = spawnSync('npm', ['test'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 600_000,
      env: { ...process.env, NO_COLOR: '1', CI: '1' },
    });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    for (const name of ['game', 'rank', 'profile']) expect(test.stdout).toContain(`> shop-${name}@0.1.0 test`);
    expect(test.stdout.match(/Tests\s+\d+ passed/g)).toHaveLength(3);
  }, 900_000);
});
