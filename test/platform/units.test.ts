import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { writeFileAtomic } from '../../src/platform/media-api/state/atomic-file.js';
import { PlatformError } from '../../src/platform/errors.js';
import { drawFaults, parseFaults } from '../../src/platform/media-api/http/faults.js';
import { newLogId } from '../../src/platform/media-api/state/ids.js';
import { checkMediaPath, mediaPath } from '../../src/platform/media-api/http/media-links.js';
import { parseRange } from '../../src/platform/media-api/http/range.js';
import { RateLimiter } from '../../src/platform/media-api/http/rate-limiter.js';
import { StateStore, STATE_FILE } from '../../src/platform/media-api/state/state-store.js';
import { formatCreateTime } from '../../src/platform/media-api/state/stats.js';
import { TokenIssuer } from '../../src/platform/media-api/keys/tokens.js';
import { addAppKey, AppKeyRegistry, normalizeAppPublicKey } from '../../src/platform/media-api/keys/app-keys.js';
import { JobQueue } from '../../src/platform/media-api/jobs/job-queue.js';
import { tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const clean of cleanups.splice(0)) clean();
});
function dir(): string {
  const t = tempDir();
  cleanups.push(t.remove);
  return t.dir;
}

describe('parseRange', () => {
  test.each([
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=100-', 1000, { start: 100, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    ['bytes=990-5000', 1000, { start: 990, end: 999 }],
    ['bytes=1000-', 1000, 'unsatisfiable'],
    ['bytes=-0', 1000, 'unsatisfiable'],
    ['bytes=5-1', 1000, undefined],
    ['bytes=0-1,5-6', 1000, undefined],
    ['items=0-1', 1000, undefined],
    [undefined, 1000, undefined],
  ] as const)('%s of %d bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('faults', () => {
  test('parses every fault with its rate and latency', () => {
    expect(parseFaults('latency=0.5:200ms, 500=0.1,expired-token=0.2,bad-signature=1,rate-limit=0')).toEqual({
      latency: { rate: 0.5, ms: 200 },
      error500: { rate: 0.1 },
      expiredToken: { rate: 0.2 },
      badSignature: { rate: 1 },
      rateLimit: { rate: 0 },
    });
  });
  test('names the bad entry', () => {
    expect(() => parseFaults('latency=2:10')).toThrow(/rate "2" in "latency=2:10" must be a number from 0 to 1/);
    expect(() => parseFaults('explode=0.1')).toThrow(/unknown fault "explode"/);
    expect(() => parseFaults('latency=0.1:fast')).toThrow(/latency "fast" must be whole milliseconds/);
  });
  test('rate 1 always fires, rate 0 never, others follow the dice', () => {
    expect(drawFaults({ error500: { rate: 1 }, rateLimit: { rate: 0 } }, () => 0.99)).toMatchObject({
      error500: true,
      rateLimit: false,
    });
    expect(drawFaults({ latency: { rate: 0.5, ms: 30 } }, () => 0.4).delayMs).toBe(30);
    expect(drawFaults({ latency: { rate: 0.5, ms: 30 } }, () => 0.6).delayMs).toBe(0);
  });
});

test('the rate limiter allows 20 per second per appid and operation', () => {
  let now = 1_700_000_000_000;
  const limiter = new RateLimiter({ start_work_flow: 20 }, () => now);
  const results = Array.from({ length: 21 }, () => limiter.take('start_work_flow', 'tt1'));
  expect(results.filter(Boolean)).toHaveLength(20);
  expect(results[20]).toBe(false);
  expect(limiter.take('start_work_flow', 'tt2')).toBe(true);
  expect(limiter.take('get_video_list', 'tt1')).toBe(true);
  now += 1001;
  expect(limiter.take('start_work_flow', 'tt1')).toBe(true);
});

describe('state on disk', () => {
  test('writeFileAtomic leaves no temporary file and replaces the content whole', async () => {
    const d = dir();
    const file = join(d, 'a.json');
    await writeFileAtomic(file, 'old');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, JSON.stringify({ i, pad: 'x'.repeat(10_000) }))),
    );
    expect(readdirSync(d)).toEqual(['a.json']);
    expect(JSON.parse(readFileSync(file, 'utf8')).pad).toHaveLength(10_000);
  });

  test('the store coalesces changes and reopens what it saved', async () => {
    const d = dir();
    const store = await StateStore.open(d);
    for (let i = 0; i < 100; i++) {
      store.state.tokens[`t${i}`] = { token: `t${i}`, clientKey: 'tt1', expiresAt: i };
      store.changed();
    }
    await store.flush();
    expect(readdirSync(d)).toEqual([STATE_FILE]);
    const again = await StateStore.open(d);
    expect(Object.keys(again.state.tokens)).toHaveLength(100);
    expect(again.state.linkSecret).toBe(store.state.linkSecret);
  });

  test('a corrupt state file is reported with the fix', async () => {
    const d = dir();
    writeFileSync(join(d, STATE_FILE), '{"version":1,');
    await expect(StateStore.open(d)).rejects.toThrow(/state\.json cannot be read .*start with --reset/);
  });
});

describe('media links', () => {
  const secret = 'test-secret';
  const link = { expires: 2_000_000_000, appid: 'tt1', vid: 'v1', rendition: '5', file: 'index.m3u8' };
  test('a signed path checks, and a segment of the same rendition shares the grant', () => {
    const path = mediaPath(secret, link);
    expect(checkMediaPath(secret, path, 1_900_000_000_000)).toEqual({ ok: true, link });
    const segment = path.replace(/index\.m3u8$/, 'seg_000.ts');
    expect(checkMediaPath(secret, segment, 1_900_000_000_000)).toMatchObject({
      ok: true,
      link: { file: 'seg_000.ts' },
    });
  });
  test('expired, tampered, other secret and traversal are refused', () => {
    const path = mediaPath(secret, link);
    expect(checkMediaPath(secret, path, 2_000_000_000_000)).toEqual({
      ok: false,
      reason: 'expired',
      expires: 2_000_000_000,
    });
    expect(checkMediaPath(secret, path.replace('/v1/', '/v2/'), 0).ok).toBe(false);
    expect(checkMediaPath(secret, path.replace('2000000000', '2000000001'), 0).ok).toBe(false);
    expect(checkMediaPath('other', path, 0)).toEqual({ ok: false, reason: 'invalid' });
    expect(checkMediaPath(secret, path.replace('index.m3u8', '..%2Fstate.json'), 0)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });
});

test('log ids start with the UTC time and carry 18 hex digits', () => {
  expect(newLogId(new Date('2024-05-10T08:15:02Z'))).toMatch(/^20240510081502[0-9A-F]{18}$/);
  expect(formatCreateTime(0)).toBe('1970-01-01 08:00:00');
});

describe('tokens', () => {
  test('registered clients only, with expiry', async () => {
    let now = 1_700_000_000_000;
    const store = await StateStore.open(dir());
    const tokens = new TokenIssuer(store, { clients: { tt1: 'right' }, ttlSeconds: 60 }, () => now);
    expect(() => tokens.issue({ client_key: 'tt1', client_secret: 'wrong', grant_type: 'client_credential' })).toThrow(
      expect.objectContaining({ code: 'PLATFORM_BAD_CLIENT', status: 401 }),
    );
    expect(() => tokens.issue({ client_key: 'tt1', client_secret: 'right', grant_type: 'password' })).toThrow(
      /grant_type must be "client_credential", got "password"/,
    );
    const issued = tokens.issue({ client_key: 'tt1', client_secret: 'right', grant_type: 'client_credential' });
    expect(issued.expires_in).toBe(60);
    expect(tokens.check(issued.access_token).clientKey).toBe('tt1');
    now += 60_000;
    expect(() => tokens.check(issued.access_token)).toThrow(
      expect.objectContaining({ code: 'PLATFORM_TOKEN_EXPIRED', errNo: 28001008 }),
    );
    expect(() => tokens.check('nope')).toThrow(
      expect.objectContaining({ code: 'PLATFORM_TOKEN_INVALID', errNo: 28001003 }),
    );
    expect(() => tokens.check(undefined)).toThrow(expect.objectContaining({ code: 'PLATFORM_TOKEN_MISSING' }));
  });

  test('a new token retires the previous one after retireSeconds, and any older one at once', async () => {
    let now = 1_700_000_000_000;
    const store = await StateStore.open(dir());
    const tokens = new TokenIssuer(store, { clients: {}, ttlSeconds: 7200, retireSeconds: 300 }, () => now);
    const fetch = () =>
      tokens.issue({ client_key: 'tt1', client_secret: 's', grant_type: 'client_credential' }).access_token;
    const other = tokens.issue({ client_key: 'tt2', client_secret: 's', grant_type: 'client_credential' }).access_token;
    const first = fetch();
    now += 1000;
    const second = fetch();
    // Both valid during the overlap.
    expect(tokens.check(first).clientKey).toBe('tt1');
    expect(tokens.check(second).clientKey).toBe('tt1');
    now += 1000;
    const third = fetch();
    // Only the latest two: the first is retired at once, the second in 300 s.
    expect(() => tokens.check(first)).toThrow(
      expect.objectContaining({ code: 'PLATFORM_TOKEN_RETIRED', errNo: 28001003, status: 401 }),
    );
    expect(() => tokens.check(first)).toThrow(/share one token across instances \(CLOUDFN_REDIS_URL\)/);
    expect(tokens.check(second).clientKey).toBe('tt1');
    now += 300_000;
    expect(() => tokens.check(second)).toThrow(expect.objectContaining({ code: 'PLATFORM_TOKEN_RETIRED' }));
    expect(tokens.check(third).clientKey).toBe('tt1');
    // Another client's token is its own.
    expect(tokens.check(other).clientKey).toBe('tt2');
  });

  test('more than fetchLimit fetches per window are refused with err_no 10020', async () => {
    let now = 1_700_000_000_000;
    const store = await StateStore.open(dir());
    const tokens = new TokenIssuer(
      store,
      { clients: {}, ttlSeconds: 7200, fetchLimit: 3, fetchWindowSeconds: 300 },
      () => now,
    );
    const fetch = () => tokens.issue({ client_key: 'tt1', client_secret: 's', grant_type: 'client_credential' });
    for (let i = 0; i < 3; i++) fetch();
    expect(() => fetch()).toThrow(
      expect.objectContaining({ code: 'PLATFORM_TOKEN_FETCH_LIMIT', errNo: 10020, status: 429 }),
    );
    expect(() => fetch()).toThrow(/fetched more than 3 tokens in 300 s; cache the token/);
    now += 300_001;
    expect(fetch().access_token).toMatch(/^clt\./);
  });
});

describe('app keys', () => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  test('only the SPKI PEM of an RSA 2048 key is accepted', () => {
    expect(normalizeAppPublicKey(spki)).toBe(spki);
    const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(() => normalizeAppPublicKey(pkcs1)).toThrow(/got "BEGIN RSA PUBLIC KEY"/);
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    expect(() => normalizeAppPublicKey(small)).toThrow(PlatformError);
    expect(() => normalizeAppPublicKey('hello')).toThrow(/no PEM armour found/);
  });
  test('keys added on disk are seen by a running registry', async () => {
    const d = dir();
    const registry = new AppKeyRegistry(d);
    expect(registry.hasKeys('tt1')).toBe(false);
    const file = await addAppKey(d, 'tt1', '2', spki);
    expect(existsSync(file)).toBe(true);
    expect(registry.hasKeys('tt1')).toBe(true);
    expect(registry.resolve('tt1', '2')).toBe(spki);
    expect(registry.resolve('tt1', '1')).toBeUndefined();
  });
});

test('the job queue runs at most `concurrency` tasks and aborts them on close', async () => {
  const errors: unknown[] = [];
  const queue = new JobQueue(2, (e) => errors.push(e));
  let running = 0;
  let peak = 0;
  for (let i = 0; i < 6; i++) {
    queue.push(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
    });
  }
  await queue.idle();
  expect(peak).toBe(2);
  let aborted = false;
  queue.push(
    (signal) => new Promise((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve()))),
  );
  await queue.close();
  expect(aborted).toBe(true);
  expect(errors).toEqual([]);
});
