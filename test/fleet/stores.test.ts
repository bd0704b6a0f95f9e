/**
 * The fleet's stores against a real redis-server: the setting's precedence, the nonce claimed
 * once across clients and failing closed when Redis is gone, the shared sliding-window limit
 * (each call counted from its admission to its answer), and the token store's lock, publish and compare-and-delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedisClients } from '../../src/fleet/connect.js';
import { RedisNonceStore } from '../../src/fleet/nonce-store.js';
import { RedisRateLimiter } from '../../src/fleet/rate-limiter.js';
import { RedisTokenStore } from '../../src/fleet/token-store.js';
import { resolveRedisSettings, type RedisSettings } from '../../src/fleet/settings.js';
import { hasRedis, RedisServer } from './redis-server.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const clock = { sleep };

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

  it('lets no 21 of 40 calls over two limiters meet in one second, wherever between send and answer they arrive', async () => {
    const one = new RedisRateLimiter(settings, { warn, marginMs: 0 });
    const two = new RedisRateLimiter(settings, { warn, marginMs: 0 });
    // Each call is in flight 0 to 300 ms: a send late after its admission, a slow answer.
    const calls = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const answered = await (i % 2 === 0 ? one : two).take('start_work_flow:tt1', 20, clock);
        const sent = Date.now();
        await sleep((i * 7919) % 300);
        const answer = Date.now();
        answered!();
        return { sent, answer };
      }),
    );
    // The platform counts a call at some time between its send and its answer: the most calls
    // one window of 1000 ms can hold is the most whose spans all meet one that starts at an answer.
    const most = Math.max(
      ...calls.map(({ answer: from }) => calls.filter((c) => c.answer >= from && c.sent < from + 1000).length),
    );
    expect(most).toBeLessThanOrEqual(20);
    // Another mini-program has its own limit.
    const started = Date.now();
    (await one.take('start_work_flow:tt2', 20, clock))!();
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('counts a call never answered until its lease ends', async () => {
    const limiter = new RedisRateLimiter(settings, { warn, marginMs: 0, leaseMs: 300 });
    const started = Date.now();
    expect(await limiter.take('start_work_flow:lease', 1, clock)).toBeTypeOf('function');
    // Its instance died: no answer. The next call waits for the lease, then the window.
    (await limiter.take('start_work_flow:lease', 1, clock))!();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1300);
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
    expect(await limiter.take('start_work_flow:down', 20, clock)).toBeUndefined();
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
