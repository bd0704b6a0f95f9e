/**
 * The stores wired into cloudfn/sign and cloudfn/media against a real redis-server: the
 * verifiers' default nonce store becomes Redis with a setting (option or env) and stays in
 * memory without; the media client shares one token fetch and the rate limits across clients
 * (two clients stand for two instances), and falls back with a warning when Redis is gone.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeRedisClients } from '../../src/fleet/connect.js';
import { createMediaClient, type MediaClient } from '../../src/media/index.js';
import {
  callbackMiddleware,
  defaultNonceStore,
  signCallback,
  signRequest,
  verifyCallback,
  verifyRequest,
} from '../../src/sign/index.js';
import { LazyRedisNonceStore, sharedNonceStore } from '../../src/sign/shared-nonces.js';
import { hasRedis, RedisServer } from './redis-server.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const lower = (h: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

describe('sharedNonceStore', () => {
  it('is the in-memory default without a setting, a Redis store (made once per URL) with one', () => {
    expect(sharedNonceStore(undefined, {})).toBe(defaultNonceStore);
    const a = sharedNonceStore(undefined, { CLOUDFN_REDIS_URL: 'redis://127.0.0.1:1' });
    // A Redis store, imported on its first claim so that bundles without Redis do not carry it.
    expect(a).toBeInstanceOf(LazyRedisNonceStore);
    expect(sharedNonceStore(undefined, { CLOUDFN_REDIS_URL: 'redis://127.0.0.1:1' })).toBe(a);
    expect(sharedNonceStore('redis://127.0.0.1:2', {})).toBeInstanceOf(LazyRedisNonceStore);
    expect(sharedNonceStore(undefined, { REDIS_ADDRESS: '127.0.0.1:3' })).toBeInstanceOf(LazyRedisNonceStore);
  });
});

describe.skipIf(!hasRedis)('the stores wired in, on a real redis-server', () => {
  const redis = new RedisServer();
  const prefix = `w${process.pid}:`;
  let platform: Server;
  let base: string;
  let tokenFetches = 0;
  let startTimes: number[] = [];
  let refuse = new Set<string>();

  beforeAll(async () => {
    await redis.start();
    process.env.CLOUDFN_REDIS_PREFIX = prefix;
    // A small stand-in for the platform: counts token fetches, refuses tokens on demand.
    platform = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/oauth/client_token/') {
          tokenFetches++;
          setTimeout(
            () =>
              res.end(JSON.stringify({ err_no: 0, data: { access_token: `tok${tokenFetches}`, expires_in: 7200 } })),
            30,
          );
          return;
        }
        const token = req.headers['access-token'] as string;
        if (refuse.has(token)) {
          res.statusCode = 401;
          res.end(JSON.stringify({ err_no: 28001003, err_msg: 'access token invalid' }));
          return;
        }
        if (req.url?.endsWith('start_work_flow')) startTimes.push(Date.now());
        res.end(JSON.stringify({ err_no: 0, err_msg: '', data: { run_id: 'r1', token } }));
      });
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    delete process.env.CLOUDFN_REDIS_PREFIX;
    await closeRedisClients();
    await redis.stop();
    await new Promise((resolve) => platform.close(resolve));
  });

  it('refuses a replayed callback with the redis option even after the process store forgets it', async () => {
    const body = '{"event":"upload.finished","app_id":"tt1"}';
    const headers = lower(signCallback({ privateKey, body }));
    await verifyCallback({ headers, rawBody: body, publicKey, redis: redis.url });
    defaultNonceStore.clear();
    await expect(verifyCallback({ headers, rawBody: body, publicKey, redis: redis.url })).rejects.toMatchObject({
      code: 'SIGN_REPLAY',
    });
  });

  it('refuses a replayed request with CLOUDFN_REDIS_URL set', async () => {
    process.env.CLOUDFN_REDIS_URL = redis.url;
    try {
      const signed = signRequest({ privateKey, appid: 'tt1', keyVersion: '1', method: 'POST', url: '/x', body: '{}' });
      const verify = () =>
        verifyRequest({
          authorization: signed.authorization,
          method: 'POST',
          url: '/x',
          body: '{}',
          publicKeys: { '1': publicKey },
        });
      await verify();
      defaultNonceStore.clear();
      await expect(verify()).rejects.toMatchObject({ code: 'SIGN_REPLAY' });
    } finally {
      delete process.env.CLOUDFN_REDIS_URL;
    }
  });

  it('answers 401 SIGN_REPLAY from a second middleware, and 503 FLEET_UNAVAILABLE when Redis is unreachable', async () => {
    const body = '{"event":"x","app_id":"tt1"}';
    const headers = lower(signCallback({ privateKey, body }));
    const run = async (redisUrl: string): Promise<{ status: number; text: string }> => {
      const mw = callbackMiddleware({ publicKey, redis: redisUrl });
      const server = createServer((req, res) => mw(req, res, () => res.end('ok')));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
      const text = await response.text();
      server.close();
      return { status: response.status, text };
    };
    expect(await run(redis.url)).toEqual({ status: 200, text: 'ok' });
    const again = await run(redis.url);
    expect(again.status).toBe(401);
    expect(again.text).toContain('SIGN_REPLAY');
    const fresh = lower(signCallback({ privateKey, body }));
    const mw = callbackMiddleware({ publicKey, redis: 'redis://127.0.0.1:1' });
    const server = createServer((req, res) => mw(req, res, () => res.end('ok')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      method: 'POST',
      headers: fresh,
      body,
    });
    server.close();
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('FLEET_UNAVAILABLE');
  });

  const client = (scope: string, extra: Record<string, unknown> = {}): MediaClient =>
    createMediaClient({
      baseUrl: base,
      credentials: { clientKey: `ck-${scope}`, clientSecret: 's' },
      redis: redis.url,
      retries: 0,
      env: {},
      ...extra,
    });

  it('fetches one token for two clients of 50 concurrent calls each', async () => {
    tokenFetches = 0;
    const a = client('one');
    const b = client('one');
    const calls = [a, b].flatMap((c) =>
      Array.from({ length: 50 }, () => c.getWorkFlowExecution({ run_id: 'r1' } as never)),
    );
    const results = await Promise.all(calls);
    expect(tokenFetches).toBe(1);
    expect(results).toHaveLength(100);
  });

  it('refreshes once for both clients when the platform refuses the shared token', async () => {
    tokenFetches = 0;
    const a = client('two');
    const b = client('two');
    await Promise.all([
      a.getWorkFlowExecution({ run_id: 'r1' } as never),
      b.getWorkFlowExecution({ run_id: 'r1' } as never),
    ]);
    expect(tokenFetches).toBe(1);
    refuse = new Set([`tok1`]);
    await Promise.all(
      [a, b].flatMap((c) => Array.from({ length: 10 }, () => c.getWorkFlowExecution({ run_id: 'r1' } as never))),
    );
    expect(tokenFetches).toBe(2);
    refuse = new Set();
  });

  it('keeps 2 × 40 start_work_flow calls at 20 in any second across two clients', async () => {
    startTimes = [];
    const a = client('three', { accessToken: 'fixed', credentials: undefined });
    const b = client('three', { accessToken: 'fixed', credentials: undefined });
    await Promise.all(
      [a, b].flatMap((c) => Array.from({ length: 40 }, (_, i) => c.startWorkFlow({ vid: `v${i}` } as never))),
    );
    const times = startTimes.sort((x, y) => x - y);
    expect(times).toHaveLength(80);
    for (let i = 20; i < times.length; i++) expect(times[i]! - times[i - 20]!).toBeGreaterThanOrEqual(980);
  }, 15_000);

  it('falls back to a local fetch and the local bucket, with a warning, when Redis is unreachable', async () => {
    tokenFetches = 0;
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: unknown) => void warnings.push(String(m)), error() {} };
    const down = client('four', { redis: 'redis://127.0.0.1:1', logger });
    await down.startWorkFlow({ vid: 'v1' } as never);
    expect(tokenFetches).toBe(1);
    expect(warnings.some((w) => w.includes('shared token cache') && w.includes('fell back'))).toBe(true);
    expect(warnings.some((w) => w.includes('shared rate limit') && w.includes('fell back'))).toBe(true);
  });
});

describe.skipIf(!hasRedis)('callback de-duplication across instances', () => {
  const redis = new RedisServer();
  beforeAll(async () => {
    await redis.start();
  });
  afterAll(async () => {
    await closeRedisClients();
    await redis.stop();
  });

  it('hands a notification delivered to two instances to one handler', async () => {
    let handled = 0;
    const ports: number[] = [];
    const servers: Server[] = [];
    for (let i = 0; i < 2; i++) {
      const mw = callbackMiddleware({ publicKey, redis: redis.url, dedupe: true });
      const server = createServer((req, res) =>
        mw(req, res, () => {
          handled++;
          res.end('done');
        }),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      ports.push((server.address() as AddressInfo).port);
    }
    const body = '{"id":"cb_fleet_1","event":"upload.finished","app_id":"tt1"}';
    // Each delivery is signed afresh (new nonce), as the platform's retries are.
    const answers = await Promise.all(
      ports.map((port) =>
        fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          headers: lower(signCallback({ privateKey, body })),
          body,
        }),
      ),
    );
    for (const server of servers) server.close();
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(handled).toBe(1);
  });
});
