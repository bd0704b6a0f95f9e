/**
 * The app's components as the platform injects them: the setting's table of forms and refusals,
 * the exact variables (`REDIS_*`, `MYSQL_*`, `MONGO_*`), then real servers: redis-server through
 * ioredis and MariaDB through mysql2, each connecting with nothing but the injected variables,
 * keeping their data across a stop and a start, shared by a second starter, and the one-line
 * message when the program is missing.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { componentEnv, readComponentsSetting, startComponents } from '../../src/platform/components/index.js';
import { startComponents as startTestComponents } from '../../src/testing/index.js';

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const hasRedis = has('redis-server');
const hasMariaDb = has('mariadbd') || has('mysqld');
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-components-test-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const redisFromEnv = (env: Readonly<Record<string, string>>) => {
  const [host, port] = env['REDIS_ADDRESS']!.split(':');
  return new Redis({
    host: host!,
    port: Number(port),
    username: env['REDIS_USERNAME']!,
    password: env['REDIS_PASSWORD']!,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
};

describe('the components setting and the variables it injects', () => {
  it('turns each URL into the platform variables, decoded, with the address as host:port', () => {
    expect(componentEnv('redis', 'redis://app:p%40ss@10.0.0.5:6380')).toEqual({
      REDIS_ADDRESS: '10.0.0.5:6380',
      REDIS_USERNAME: 'app',
      REDIS_PASSWORD: 'p@ss',
    });
    expect(componentEnv('redis', '127.0.0.1:6379')).toEqual({
      REDIS_ADDRESS: '127.0.0.1:6379',
      REDIS_USERNAME: '',
      REDIS_PASSWORD: '',
    });
    expect(componentEnv('mysql', 'mysql://root:secret@db.internal:3306/')).toEqual({
      MYSQL_ADDRESS: 'db.internal:3306',
      MYSQL_USERNAME: 'root',
      MYSQL_PASSWORD: 'secret',
    });
  });

  it('keeps the Mongo host list and its ?authSource=, so mongodb://user:pass@MONGO_ADDRESS is the URL again', () => {
    const url = 'mongodb://game:s3cret@10.1.0.1:3717,10.1.0.2:3717/?authSource=admin';
    const env = componentEnv('mongo', url);
    expect(env).toEqual({
      MONGO_ADDRESS: '10.1.0.1:3717,10.1.0.2:3717/?authSource=admin',
      MONGO_USERNAME: 'game',
      MONGO_PASSWORD: 's3cret',
    });
    expect(`mongodb://${env['MONGO_USERNAME']}:${env['MONGO_PASSWORD']}@${env['MONGO_ADDRESS']}`).toBe(url);
    expect(componentEnv('mongo', 'mongodb://localhost:27017')['MONGO_ADDRESS']).toBe('localhost:27017');
  });

  it.each([
    [{ postgres: true }, 'components.postgres is not a component: use one of redis, mysql, mongo'],
    [
      { mongo: true },
      'components.mongo is true: cloudfn cannot start a MongoDB server; run one (docker run -d -p 27017:27017 mongo)',
    ],
    [{ redis: 'yes' }, 'components.redis is "yes": give redis://user:password@host:port with a port'],
    [{ redis: 'http://h:1' }, 'components.redis is "http://h:1": give redis://'],
    [{ mysql: 'mysql://u:p@db' }, 'components.mysql is "mysql://u:p@db": give mysql://user:password@host:port'],
    [{ mysql: 3306 }, 'components.mysql is 3306: write true (a local server) or the URL of a running one'],
    [{ mongo: 'mongodb+srv://u:p@cluster.example' }, 'mongodb+srv:// has no host list to inject'],
    [['redis'], 'components.(the object) is ["redis"]: write an object'],
    [
      { tos: 'tos-cn-beijing.volces.com' },
      'components.tos is "tos-cn-beijing.volces.com": write true: cloudfn dev answers',
    ],
  ])('refuses %j in one line that names the key and the fix', (value, message) => {
    let thrown: unknown;
    try {
      readComponentsSetting(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'CLOUDFN_COMPONENT_SETTING' });
    expect((thrown as Error).message).toContain(message);
    expect((thrown as Error).message).not.toContain('\n');
  });

  it('takes tos: true (the local object store, no server to start), and tos: false as absent', () => {
    expect(readComponentsSetting({ tos: true, redis: false })).toEqual({ tos: true });
    expect(readComponentsSetting({ tos: false })).toEqual({});
  });

  it('takes false as absent, and the string forms as they are', () => {
    expect(readComponentsSetting({ redis: false, mysql: 'mysql://u:p@h:1', mongo: 'mongodb://h:1' })).toEqual({
      mysql: 'mysql://u:p@h:1',
      mongo: 'mongodb://h:1',
    });
  });

  it('names the install command and the string form when the program is missing', async () => {
    // A PATH with a shell and nothing else: redis-server and mariadbd are not found.
    const bin = tempDir();
    symlinkSync(spawnSync('sh', ['-c', 'command -v sh'], { encoding: 'utf8' }).stdout.trim(), join(bin, 'sh'));
    const saved = process.env['PATH'];
    process.env['PATH'] = bin;
    try {
      await expect(startComponents({ redis: true }, { dir: tempDir() })).rejects.toThrow(
        'components.redis: redis-server is not installed; install it (apt-get install redis-server, or brew install redis) or point at a running server with "components": { "redis": "redis://user:password@127.0.0.1:6379" }',
      );
      await expect(startComponents({ mysql: true }, { dir: tempDir() })).rejects.toMatchObject({
        code: 'CLOUDFN_COMPONENT_NOT_INSTALLED',
        message: expect.stringContaining('install it (apt-get install mariadb-server, or brew install mariadb)'),
      });
    } finally {
      process.env['PATH'] = saved;
    }
  });
});

describe.skipIf(!hasRedis)('redis: true, a real redis-server', () => {
  it('is reached with the injected variables alone, refuses code without them, and keeps its data across a restart', async () => {
    const dir = tempDir();
    const first = await startComponents({ redis: true }, { dir });
    const env = first.env;
    expect(Object.keys(env).sort()).toEqual(['REDIS_ADDRESS', 'REDIS_PASSWORD', 'REDIS_USERNAME']);
    expect(env['REDIS_ADDRESS']).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(env['REDIS_USERNAME']).toBe('cloudfn');
    const client = redisFromEnv(env);
    await client.connect();
    expect(await client.incr('visits')).toBe(1);
    expect(await client.incr('visits')).toBe(2);
    client.disconnect();
    // As on the platform, an account is needed: the default user is off.
    const anonymous = new Redis({
      host: '127.0.0.1',
      port: Number(env['REDIS_ADDRESS']!.split(':')[1]),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    anonymous.on('error', () => {});
    await anonymous.connect().catch(() => {});
    await expect(anonymous.get('visits')).rejects.toThrow(/NOAUTH|WRONGPASS|closed/);
    anonymous.disconnect();
    await first.stop();

    const second = await startComponents({ redis: true }, { dir });
    expect(second.env).toEqual(env); // the same account, and the port of last time when it is free
    const again = redisFromEnv(second.env);
    await again.connect();
    expect(await again.incr('visits')).toBe(3);
    again.disconnect();
    await second.stop();
  }, 60_000);

  it('is shared by a second starter of the same app, which does not stop it', async () => {
    const dir = tempDir();
    const owner = await startComponents({ redis: true }, { dir });
    const sharer = await startComponents({ redis: true }, { dir });
    expect(sharer.running[0]!.owned).toBe(false);
    expect(sharer.env).toEqual(owner.env);
    await sharer.stop();
    const client = redisFromEnv(owner.env);
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    await owner.stop();
  }, 60_000);

  it('cloudfn/testing starts one in a folder of its own and removes it at stop', async () => {
    const components = await startTestComponents({
      redis: true,
      mongo: 'mongodb://u:p@127.0.0.1:27017/?authSource=admin',
    });
    const dir = components.running[0]!.dir!;
    expect(components.env['MONGO_ADDRESS']).toBe('127.0.0.1:27017/?authSource=admin');
    const client = redisFromEnv(components.env);
    await client.connect();
    expect(await client.set('k', 'v')).toBe('OK');
    client.disconnect();
    await components.stop();
    expect(spawnSync('test', ['-e', dir]).status).not.toBe(0);
  }, 60_000);
});

describe.skipIf(!hasMariaDb)('mysql: true, a real MariaDB server', () => {
  it('is reached with the injected variables alone, and keeps its tables across a restart', async () => {
    const dir = tempDir();
    const connect = async (env: Readonly<Record<string, string>>) => {
      const [host, port] = env['MYSQL_ADDRESS']!.split(':');
      return mysql.createConnection({
        host: host!,
        port: Number(port),
        user: env['MYSQL_USERNAME']!,
        password: env['MYSQL_PASSWORD']!,
      });
    };
    const first = await startComponents({ mysql: true }, { dir });
    expect(Object.keys(first.env).sort()).toEqual(['MYSQL_ADDRESS', 'MYSQL_PASSWORD', 'MYSQL_USERNAME']);
    const db = await connect(first.env);
    await db.query('CREATE DATABASE IF NOT EXISTS game');
    await db.query('CREATE TABLE game.scores (player VARCHAR(32) PRIMARY KEY, points INT NOT NULL)');
    await db.query("INSERT INTO game.scores VALUES ('ada', 3)");
    await db.end();
    await expect(connect({ ...first.env, MYSQL_PASSWORD: 'wrong' }).then((c) => c.end())).rejects.toMatchObject({
      code: 'ER_ACCESS_DENIED_ERROR',
    });
    await first.stop();

    const second = await startComponents({ mysql: true }, { dir });
    expect(second.env).toEqual(first.env);
    const again = await connect(second.env);
    await again.query("UPDATE game.scores SET points = points + 1 WHERE player = 'ada'");
    const [rows] = await again.query('SELECT player, points FROM game.scores');
    expect(rows).toEqual([{ player: 'ada', points: 4 }]);
    await again.end();
    await second.stop();
  }, 120_000);
});
