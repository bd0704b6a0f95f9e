/**
 * The fleet's stores against a real redis-server: the setting's precedence, the nonce claimed
 * once across clients and failing closed when Redis is gone, the shared sliding-window limit,
 * and the token store's lock, publish and compare-and-delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedisClients } from '../../src/fleet/connect.js';
import { RedisNonceStore } from '../../src/fleet/nonce-store.js';
import { RedisRateLimiter } from '../../src/fleet/rate-limiter.js';
import { RedisTokenStore } from '../../src/fleet/token-store.js';
import { resolveRedisSettings, type RedisSettings } from '../../src/fleet/settings.js';
import { hasRedis, RedisServer } from './redis-server.js';

describe('resolveRedisSettings', () => {
  it('is undefined without a setting, so every store stays in memory', () => {
    expect(resolveRedisSettings({ env: {} })).toBeUndefined();
  });

  it('takes the option, then CLOUDFN_REDIS_URL, then REDIS_ADDRESS with its credentials', () => {
    const env = {
      CLOUDFN_REDIS_URL: 'redis://a:6379',
      REDIS_ADDRESS: 'b:6380',
      REDIS_USERNAME: 'u',
      REDIS_PASSWORD: 'p@ss',
    };
    expect(resolveRedisSettings({ option: 'redis://opt:1', env })).toMatchObject({
      url: 'redis://opt:1',
      source: 'option',
    });
    expect(resolveRedisSettings({ env })).toMatchObject({
      url: 'redis://a:6379',
      source: 'CLOUDFN_REDIS_URL',
      commandTimeoutMs: 300,
      keyPrefix: 'cloudfn:',
    });
    expect(resolveRedisSettings({ env: { ...env, CLOUDFN_REDIS_URL: '' } })).toMatchObject({
      url: 'redis://u:p%40ss@b:6380',
      source: 'REDIS_ADDRESS',
    });
  });

  it('names a bad value and the fix', () => {
    expect(() => resolveRedisSettings({ env: { CLOUDFN_REDIS_URL: 'localhost:6379' } })).toThrow(
      'CLOUDFN_REDIS_URL must start with redis:// or rediss://, got "localhost:6379"',
    );
    expect(() => resolveRedisSettings({ env: { REDIS_ADDRESS: 'http://x' } })).toThrow(
      'REDIS_ADDRESS must be host or host:port, got "http://x"',
    );
    expect(() =>
      resolveRedisSettings({ env: { CLOUDFN_REDIS_URL: 'redis://x', CLOUDFN_REDIS_TIMEOUT: 'soon' } }),
    ).toThrow('CLOUDFN_REDIS_TIMEOUT must be a whole number of milliseconds from 1 to 60000, got "soon"');
  });
});

describe.skipIf(!hasRedis)('the stores on a real redis-server', () => {
  const server = new RedisServer();
  let settings: RedisSettings;
  const warnings: string[] = [];
  const warn = (message: string): void => void warnings.push(message);

  beforeAll(async () => {
    await server.start();
    settings = resolveRedisSettings({
      env: { CLOUDFN_REDIS_URL: server.url, CLOUDFN_REDIS_PREFIX: `t${process.pid}:` },
    })!;
  });
  afterAll(async () => {
    await closeRedisClients();
    await server.stop();
  });

  it('claims a nonce once: the second instance sees the replay', async () => {
    const a = new RedisNonceStore(settings, { warn });
    const b = new RedisNonceStore(settings, { warn });
    expect(await a.seen('app1:n1', 60, 0)).toBe(false);
    expect(await b.seen('app1:n1', 60, 0)).toBe(true);
    expect(await b.seen('app1:n2', 60, 0)).toBe(false);
  });

  it('forgets a nonce when its window is over', async () => {
    const store = new RedisNonceStore(settings, { warn });
    expect(await store.seen('app1:short', 1, 0)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await store.seen('app1:short', 1, 0)).toBe(false);
  });

  it('keeps any second of 40 reservations at 20, over two limiters', async () => {
    const one = new RedisRateLimiter(settings, { warn, marginMs: 0 });
    const two = new RedisRateLimiter(settings, { warn, marginMs: 0 });
    const started = Date.now();
    const waits = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? one : two).reserve('start_work_flow:tt1', 20)),
    );
    // Each wait counts from when its call reached Redis, some time after `started`: a slot seen
    // from here is early by at most the time all the calls took, so that is the tolerance (a
    // fixed 5 ms failed once by 1 ms on a loaded machine).
    const spread = Date.now() - started;
    const slots = waits.map((wait) => started + wait!).sort((a, b) => a - b);
    expect(waits.filter((wait) => wait === 0).length).toBeLessThanOrEqual(20);
    expect(spread).toBeLessThan(200);
    for (let i = 20; i < slots.length; i++) expect(slots[i]! - slots[i - 20]!).toBeGreaterThanOrEqual(1000 - spread);
    // Another mini-program has its own limit.
    expect(await one.reserve('start_work_flow:tt2', 20)).toBe(0);
  });

  it('lets one instance take the refresh lock, publishes its token, and retires only the refused one', async () => {
    const a = new RedisTokenStore(settings, { warn, lockMs: 2000 });
    const b = new RedisTokenStore(settings, { warn, lockMs: 2000 });
    expect(await a.read('client1')).toBeUndefined();
    expect(await a.lock('client1')).toBe(true);
    expect(await b.lock('client1')).toBe(false);
    await a.write('client1', { token: 'T1', refreshAt: Date.now() + 60_000 }, Date.now() + 120_000);
    expect((await b.read('client1'))?.token).toBe('T1');
    expect(await b.lock('client1')).toBe(true);
    await b.unlock('client1');
    await a.retire('client1', 'T0');
    expect((await b.read('client1'))?.token).toBe('T1');
    await a.retire('client1', 'T1');
    expect(await b.read('client1')).toBeUndefined();
  });

  it('fails closed without Redis: the nonce store throws 503, the limiter answers undefined; both recover', async () => {
    const nonces = new RedisNonceStore(settings, { warn });
    const limiter = new RedisRateLimiter(settings, { warn });
    await server.stop();
    await expect(nonces.seen('app1:down', 60, 0)).rejects.toMatchObject({ code: 'FLEET_UNAVAILABLE', status: 503 });
    expect(await limiter.reserve('start_work_flow:down', 20)).toBeUndefined();
    expect(warnings.some((w) => w.includes('fell back'))).toBe(true);
    await server.start();
    const deadline = Date.now() + 5000;
    let back: boolean | undefined;
    while (back === undefined && Date.now() < deadline) {
      back = await nonces.seen('app1:up', 60, 0).catch(() => undefined);
      if (back === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(back).toBe(false);
  });
});
