/**
 * A fleet for real: two `cloudfn start` processes (the built CLI) over one project, the
 * platform emulator with shrunk token times, and one redis-server. A signed callback is
 * accepted by one instance only; the instances fetch one client token and renew it without
 * ever sending a retired one (while a pair without Redis does); start_work_flow stays at 20 a
 * second at the emulator; Redis killed mid-run gives the documented fallbacks, and back, sharing.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, mediaClientEnv, type Platform } from '../../src/platform/index.js';
import { signCallback } from '../../src/sign/index.js';
import { hasRedis, RedisServer } from './redis-server.js';
import { fleetProject, type Instance, maxPerSecond, media, post, startInstance } from './fleet-instances.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasRedis)('two cloudfn start instances, the emulator and one redis-server', () => {
  const redis = new RedisServer();
  let platform: Platform;
  let root: string;
  let dataDir: string;
  const lines: string[] = [];
  const arrivals: number[] = [];
  const started: Instance[] = [];
  let a: Instance;
  let b: Instance;

  const count = (pattern: RegExp, from = 0): number => lines.slice(from).filter((line) => pattern.test(line)).length;
  const tokenFetches = (from = 0) => count(/^POST \/oauth\/client_token\/ 200 /, from);
  const tokenRefusals = (from = 0) => count(/^POST \/api\/cloud_voc\/\S+ 401 /, from);

  async function instances(env: NodeJS.ProcessEnv): Promise<[Instance, Instance]> {
    const pair = await Promise.all([startInstance(root, env), startInstance(root, env)]);
    started.push(...pair);
    return pair;
  }

  /** Steady traffic from both instances for `ms`: every call must succeed at the function. */
  async function traffic(pair: Instance[], ms: number): Promise<void> {
    const until = Date.now() + ms;
    const failures: unknown[] = [];
    await Promise.all(
      pair.map(async (instance) => {
        while (Date.now() < until) {
          const result = await media(instance, { op: 'get' });
          // 400 is the emulator's "no such run": the call went through with a valid token.
          if (result.status !== 400) failures.push(result);
          await sleep(50);
        }
      }),
    );
    expect(failures).toEqual([]);
  }

  beforeAll(async () => {
    await redis.start();
    dataDir = mkdtempSync(join(tmpdir(), 'cloudfn-fleet-platform-'));
    platform = await createPlatform({
      port: 0,
      dataDir,
      ffmpeg: false,
      // Shrunk from 7200 s and 300 s: a token lives 4 s and the previous one is retired 1 s after a new one.
      tokenTtlSeconds: 4,
      tokenRetireSeconds: 1,
      log: (line) => void lines.push(line),
    });
    const limiter = platform.context.limiter;
    const take = limiter.take.bind(limiter);
    limiter.take = (operation, appid) => {
      if (operation === 'start_work_flow') arrivals.push(Date.now());
      return take(operation, appid);
    };
    root = fleetProject();
    [a, b] = await instances({
      ...mediaClientEnv(platform, { clientKey: 'tt-fleet', clientSecret: 's' }),
      CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS: '1000',
      CLOUDFN_REDIS_URL: redis.url,
      PLATFORM_PUBLIC_KEY: publicPem,
    });
  }, 30_000);

  afterAll(async () => {
    for (const instance of started) instance.child.kill('SIGKILL');
    await platform?.close();
    await redis.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('accepts the same signed callback once and refuses it once (SIGN_REPLAY)', async () => {
    const body = '{"event":"upload.finished","app_id":"tt-fleet","data":{}}';
    const headers = signCallback({ privateKey, body });
    const answers = await Promise.all([a, b].map((i) => post(`${i.url}/callback`, body, headers)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401]);
    const refused = answers.find((r) => r.status === 401)!;
    expect(await refused.text()).toContain('SIGN_REPLAY');
  });

  it('fetches one token for 2 × 50 concurrent calls, and renews it without a retired token being sent', async () => {
    const before = lines.length;
    const burst = await Promise.all([a, b].flatMap((i) => Array.from({ length: 50 }, () => media(i, { op: 'get' }))));
    expect(burst.every((r) => r.status === 400)).toBe(true);
    expect(tokenFetches(before)).toBe(1);
    // Across renewals (every 3 s: 4 s life less the 1 s margin).
    await traffic([a, b], 6500);
    expect(tokenRefusals(before)).toBe(0);
    const fetches = tokenFetches(before);
    expect(fetches).toBeGreaterThanOrEqual(2);
    expect(fetches).toBeLessThanOrEqual(4);
    console.log(`fleet with Redis: ${fetches} token fetches over ~7 s, 0 refused`);
  }, 20_000);

  it('without Redis the same run meets retired tokens', async () => {
    const pair = await instances({
      ...mediaClientEnv(platform, { clientKey: 'tt-alone', clientSecret: 's' }),
      CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS: '1000',
      PLATFORM_PUBLIC_KEY: publicPem,
    });
    const before = lines.length;
    await Promise.all(pair.map((i) => media(i, { op: 'get' })));
    await traffic(pair, 6500);
    const refused = tokenRefusals(before);
    console.log(`two instances without Redis: ${tokenFetches(before)} token fetches, ${refused} calls refused`);
    expect(refused).toBeGreaterThan(0);
    for (const instance of pair) instance.child.kill('SIGKILL');
  }, 25_000);

  it('keeps 2 × 40 start_work_flow calls at most 20 in every second at the emulator, with no 429', async () => {
    arrivals.length = 0;
    const before = lines.length;
    const results = await Promise.all(
      [a, b].flatMap((i) => Array.from({ length: 40 }, (_, n) => media(i, { op: 'start', vid: `v${n}` }))),
    );
    expect(results.filter((r) => r.status === 429)).toEqual([]);
    const fellBack = [a, b].flatMap((i) => i.warnings().map((w) => String(w['msg'])));
    expect(fellBack.filter((msg) => /shared rate limit/.test(msg))).toEqual([]);
    expect(count(/start_work_flow 429 /, before)).toBe(0);
    expect(arrivals).toHaveLength(80);
    const most = maxPerSecond(arrivals);
    console.log(`start_work_flow: at most ${most} calls in any second at the emulator`);
    expect(most).toBeLessThanOrEqual(20);
  }, 20_000);

  it('falls back when redis-server is killed (callback 503, token and limits local with a warning) and shares again once it is back', async () => {
    await redis.stop();
    const body = '{"event":"upload.finished","app_id":"tt-fleet","data":{"n":2}}';
    const down = await post(`${a.url}/callback`, body, signCallback({ privateKey, body }));
    expect(down.status).toBe(503);
    expect(await down.text()).toContain('FLEET_UNAVAILABLE');
    // Past the shared token's renewal, so each instance fetches for itself; and a limited call.
    await traffic([a, b], 3500);
    expect((await media(a, { op: 'start', vid: 'v-down' })).status).toBe(400);
    for (const instance of [a, b]) {
      expect(instance.child.exitCode).toBeNull();
      // JSON on stdout, like every other line: a collector reading stdout sees them.
      expect(instance.warnings().map((w) => String(w['msg']))).toContainEqual(
        expect.stringMatching(/shared token cache .* fell back/),
      );
      expect(instance.stderr()).not.toMatch(/fell back|unreachable/);
    }
    expect(a.warnings().map((w) => String(w['msg']))).toContainEqual(
      expect.stringMatching(/shared rate limit .* fell back/),
    );

    await redis.start();
    const deadline = Date.now() + 10_000;
    let statuses: number[] = [];
    while (Date.now() < deadline) {
      const again = `{"event":"upload.finished","app_id":"tt-fleet","data":{"t":${Date.now()}}}`;
      const headers = signCallback({ privateKey, body: again });
      statuses = (await Promise.all([a, b].map((i) => post(`${i.url}/callback`, again, headers)))).map((r) => r.status);
      if (!statuses.includes(503)) break;
      await sleep(200);
    }
    expect(statuses.sort()).toEqual([200, 401]);
  }, 30_000);
});
