/**
 * The environment the platform injects, under a one-folder `cloudfn dev`: `SERVICE_ID` (the
 * config's `serviceId`, else the folder's name) and `CLOUD_ENV=DEV` seen by a function's module
 * as it loads, a `.env` asking for PROD overruled with one warning, both put back when the
 * server closes; a bad `serviceId` refused with the fix; a component started for the session,
 * its variables set before the functions load, its server stopped with dev; and the services
 * panel's answer.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startDevServer } from '../../src/dev/index.js';
import { createMemorySink } from '../../runtime/log/sinks.js';

const base = mkdtempSync(join(tmpdir(), 'cloudfn-platform-env-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const hasRedis = spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status === 0;

function project(name: string, files: Record<string, string>): string {
  const root = join(base, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// Read as the module loads: the variables must be there before any function is imported.
const ENV_FN = `const atLoad = { SERVICE_ID: process.env.SERVICE_ID, CLOUD_ENV: process.env.CLOUD_ENV, REDIS_ADDRESS: process.env.REDIS_ADDRESS ?? null };
export default () => atLoad;
`;

describe('cloudfn dev and the platform environment', () => {
  it('sets SERVICE_ID from the folder and CLOUD_ENV=DEV before functions load, overruling PROD once', async () => {
    const root = project('my_game', { 'functions/env.ts': ENV_FN, '.env': 'CLOUD_ENV=PROD\n' });
    const sink = createMemorySink();
    const before = { SERVICE_ID: process.env['SERVICE_ID'], CLOUD_ENV: process.env['CLOUD_ENV'] };
    const dev = await startDevServer({ root, port: 0, sink });
    try {
      expect(await (await fetch(`${dev.url}/env`)).json()).toMatchObject({ SERVICE_ID: 'my-game', CLOUD_ENV: 'DEV' });
      const warned = sink.records.filter((r) => String(r.msg).includes('CLOUD_ENV=PROD is ignored'));
      expect(warned).toHaveLength(1);
      const services = await (await fetch(`${dev.url}/_cloudfn/api/services`)).json();
      expect(services).toMatchObject({ self: 'my-game', innerCall: [], services: [{ id: 'my-game', self: true }] });
    } finally {
      await dev.close();
    }
    expect({ SERVICE_ID: process.env['SERVICE_ID'], CLOUD_ENV: process.env['CLOUD_ENV'] }).toEqual(before);
  });

  it('takes serviceId from the config, and refuses one the platform would not', async () => {
    const root = project('svc', {
      'functions/env.ts': ENV_FN,
      'cloudfn.config.json': '{ "serviceId": "game", "innerCall": ["profile"] }',
    });
    const dev = await startDevServer({ root, port: 0, sink: createMemorySink() });
    try {
      expect(await (await fetch(`${dev.url}/env`)).json()).toMatchObject({ SERVICE_ID: 'game' });
    } finally {
      await dev.close();
    }
    const bad = project('bad', { 'functions/env.ts': ENV_FN, 'cloudfn.config.json': '{ "serviceId": "Game_1" }' });
    await expect(startDevServer({ root: bad, port: 0, sink: createMemorySink() })).rejects.toThrow(
      /serviceId "Game_1": write the id as the platform shows it/,
    );
  });

  it.skipIf(!hasRedis)(
    'starts a Redis component for the session and stops it with dev',
    async () => {
      const root = project('cache', {
        'functions/env.ts': ENV_FN,
        'cloudfn.config.json': '{ "components": { "redis": true } }',
      });
      const dev = await startDevServer({ root, port: 0, sink: createMemorySink() });
      let address: string;
      try {
        const seen = (await (await fetch(`${dev.url}/env`)).json()) as { REDIS_ADDRESS: string };
        address = seen.REDIS_ADDRESS;
        expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
        const [host, port] = address.split(':');
        const redis = new Redis({
          host: host!,
          port: Number(port),
          username: process.env['REDIS_USERNAME']!,
          password: process.env['REDIS_PASSWORD']!,
        });
        expect(await redis.ping()).toBe('PONG');
        redis.disconnect();
      } finally {
        await dev.close();
      }
      expect(process.env['REDIS_ADDRESS']).toBeUndefined();
      const [host, port] = address!.split(':');
      const gone = new Redis({
        host: host!,
        port: Number(port),
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      gone.on('error', () => {});
      await expect(gone.connect()).rejects.toThrow();
      gone.disconnect();
    },
    60_000,
  );
});
