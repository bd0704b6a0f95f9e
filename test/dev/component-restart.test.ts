/**
 * A component that dies under `cloudfn dev` (issue 49, item 4): after a `kill -9` of the
 * session's real redis-server, dev logs which component ended and how, starts it again on the
 * same port with its data, and the function's next calls answer with the data it had; the
 * console's components answer shows its state. A server that keeps dying is given up on after
 * the limit, and shown as failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { startDevServer } from '../../src/dev/index.js';
import { startComponents } from '../../src/platform/components/index.js';
import type { ComponentEvent } from '../../src/platform/components/index.js';
import type { ComponentsAnswer } from '../../src/platform/components/protocol.js';
import { RESTART_LIMIT } from '../../src/platform/components/supervise.js';
import { until } from '../testing/until.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const hasRedis = has('redis-server');
const hasMariaDb = has('mariadbd') || has('mysqld');
const base = mkdtempSync(join(tmpdir(), 'cloudfn-component-restart-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const COUNT = `
import { Redis } from 'ioredis';
const [host, port] = process.env.REDIS_ADDRESS!.split(':');
const redis = new Redis({ host, port: Number(port), username: process.env.REDIS_USERNAME, password: process.env.REDIS_PASSWORD });
redis.on('error', () => {}); // reconnecting while the server restarts, and after the test
export default async function count() {
  return { visits: await redis.incr('visits') };
}
`;

/** The pid and port in the running server's record. */
const record = (dir: string): { pid: number; port: number } =>
  JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as { pid: number; port: number };

describe.skipIf(!hasRedis)('a component killed under cloudfn dev', () => {
  it('is logged with how it ended, restarted on the same port within 5 s, and keeps its data', async () => {
    const root = join(base, 'cache');
    mkdirSync(join(root, 'functions'), { recursive: true });
    writeFileSync(join(root, 'cloudfn.config.json'), '{ "components": { "redis": true } }');
    writeFileSync(join(root, 'functions', 'count.ts'), COUNT);
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
    const sink = createMemorySink();
    const dev = await startDevServer({ root, port: 0, sink, typecheck: false });
    const lines = () => sink.records.map((r) => String(r.msg)).join('\n');
    try {
      const count = async () => ((await (await fetch(`${dev.url}/count`)).json()) as { visits: number }).visits;
      expect(await count()).toBe(1);
      expect(await count()).toBe(2);
      const dir = join(root, '.cloudfn', 'components', 'redis');
      const before = record(dir);
      const killedAt = Date.now();
      process.kill(before.pid, 'SIGKILL');
      await until(
        () => (/component redis \(pid \d+\) ended \(SIGKILL\)/.test(lines()) ? true : undefined),
        5_000,
        lines,
      );
      await until(() => (/component redis restarted on port \d+/.test(lines()) ? true : undefined), 5_000, lines);
      expect(Date.now() - killedAt).toBeLessThan(5_000);
      const after = record(dir);
      expect(after.port).toBe(before.port);
      expect(after.pid).not.toBe(before.pid);
      expect(lines()).toContain(`restarting it on port ${before.port}`);
      // The function's own client reconnects to the same address: the count goes on.
      expect(await count()).toBe(3);
      const answer = (await (await fetch(`${dev.consoleUrl}api/components`)).json()) as ComponentsAnswer;
      expect(answer.components).toEqual([
        expect.objectContaining({
          name: 'redis',
          address: `127.0.0.1:${before.port}`,
          state: 'running',
          detail: 'restarted 1 time; last ended by SIGKILL',
        }),
      ]);
    } finally {
      await dev.close();
    }
  }, 60_000);

  it(`is given up on after ${RESTART_LIMIT} restarts within the window, and shown as failed`, async () => {
    const events: ComponentEvent[] = [];
    const dir = join(base, 'flaky');
    const components = await startComponents(
      { redis: true },
      { dir, supervise: true, onEvent: (event) => events.push(event) },
    );
    try {
      const server = components.running[0]!;
      for (let i = 1; i <= RESTART_LIMIT + 1; i++) {
        const { pid } = record(join(dir, 'redis'));
        process.kill(pid, 'SIGKILL');
        if (i <= RESTART_LIMIT)
          await until(() => (server.status()?.restarts === i ? true : undefined), 20_000, `restart ${i}`);
      }
      await until(() => (server.status()?.state === 'failed' ? true : undefined), 20_000, 'the failed state');
      expect(events.at(-1)).toMatchObject({ name: 'redis', level: 'error' });
      expect(events.at(-1)!.message).toMatch(
        /^component redis failed: it ended 6 times within 60 s \(last: SIGKILL\); not restarted again\. Its log is .*redis\.log/,
      );
      expect(events.filter((e) => e.message.includes('restarted on port'))).toHaveLength(RESTART_LIMIT);
      // Each wait doubles: 250, 500, 1000, 2000, 4000 ms.
      expect(events.filter((e) => e.level === 'warn').map((e) => /in (\d+) ms/.exec(e.message)?.[1])).toEqual([
        '250',
        '500',
        '1000',
        '2000',
        '4000',
      ]);
    } finally {
      await components.stop();
    }
  }, 90_000);
});

describe.skipIf(!hasMariaDb)('a MariaDB component killed while supervised', () => {
  it('is restarted on the same port after kill -9, its tables kept', async () => {
    const events: ComponentEvent[] = [];
    const dir = join(base, 'db');
    const components = await startComponents(
      { mysql: true },
      { dir, supervise: true, onEvent: (event) => events.push(event) },
    );
    const [host, port] = components.env['MYSQL_ADDRESS']!.split(':');
    const connect = () =>
      mysql.createConnection({
        host: host!,
        port: Number(port),
        user: components.env['MYSQL_USERNAME']!,
        password: components.env['MYSQL_PASSWORD']!,
      });
    try {
      const db = await connect();
      await db.query('CREATE DATABASE IF NOT EXISTS game');
      await db.query('CREATE TABLE game.scores (player VARCHAR(32) PRIMARY KEY, points INT NOT NULL)');
      await db.query("INSERT INTO game.scores VALUES ('ada', 3)");
      await db.end();
      const before = record(join(dir, 'mysql'));
      process.kill(before.pid, 'SIGKILL');
      await until(
        () => components.running[0]!.status()?.restarts === 1 || undefined,
        60_000,
        () => JSON.stringify(events),
      );
      expect(events[0]!.message).toMatch(/^component mysql \(pid \d+\) ended \(SIGKILL\); restarting it on port/);
      expect(record(join(dir, 'mysql')).port).toBe(before.port);
      const again = await connect();
      const [rows] = await again.query('SELECT player, points FROM game.scores');
      expect(rows).toEqual([{ player: 'ada', points: 3 }]);
      await again.end();
    } finally {
      await components.stop();
    }
  }, 120_000);
});
