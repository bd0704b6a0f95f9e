/**
 * The client-side token bucket: 20 per second for start_work_flow and both statistics
 * operations, so a burst waits for its slot instead of failing. The clock is fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMediaClient, MediaError, TokenBucket } from '../../src/media/index.js';
import type { MediaClientOptions } from '../../src/media/index.js';
import { FakeClock, makeKeys, MediaServer, sampleResponder } from './media-server.js';

let server: MediaServer;
let clock: FakeClock;

beforeAll(async () => {
  server = await new MediaServer(makeKeys()).start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
  server.responder = sampleResponder;
  clock = new FakeClock();
});

const client = (extra: MediaClientOptions = {}) =>
  createMediaClient({ baseUrl: server.url, accessToken: 't', clock, env: {}, retries: 0, ...extra });
const top = (m: ReturnType<typeof client>) =>
  m.describeVodPlayedTopData({
    env_id: 'e',
    order_type: 5,
    start_time: Math.floor(clock.now() / 1000) - 60,
    end_time: Math.floor(clock.now() / 1000),
  });

describe('TokenBucket', () => {
  it('lets 20 through at once, then one every 50 ms, in order', async () => {
    const bucket = new TokenBucket(20, clock);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 25 }, (_, i) => bucket.take().then(() => order.push(i))));
    expect(clock.sleeps).toEqual([50, 100, 150, 200, 250]);
    expect(order).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('refills with time', async () => {
    const bucket = new TokenBucket(20, clock);
    for (let i = 0; i < 20; i++) await bucket.take();
    clock.time += 500;
    for (let i = 0; i < 10; i++) await bucket.take();
    expect(clock.sleeps).toEqual([]);
    await bucket.take();
    expect(clock.sleeps).toEqual([50]);
  });

  it('gives the token back when a waiter aborts', async () => {
    const bucket = new TokenBucket(1, clock);
    await bucket.take();
    await expect(bucket.take(AbortSignal.abort(new Error('stop')))).rejects.toThrow('stop');
    await bucket.take();
    expect(clock.sleeps).toEqual([1000]);
  });
});

describe('client rate limits', () => {
  it('a burst of 25 start_work_flow calls waits instead of failing', async () => {
    const media = client();
    const results = await Promise.all(Array.from({ length: 25 }, () => media.startWorkFlow({ vid: 'v1' })));
    expect(results.every((r) => r.run_id === 'run-1')).toBe(true);
    expect(server.to('start_work_flow')).toHaveLength(25);
    expect(clock.sleeps).toEqual([50, 100, 150, 200, 250]);
  });

  it('each rate-limited operation has its own bucket', async () => {
    const media = client();
    await Promise.all(Array.from({ length: 20 }, () => media.startWorkFlow({ vid: 'v1' })));
    await Promise.all(Array.from({ length: 20 }, () => top(media)));
    expect(clock.sleeps).toEqual([]);
  });

  it('other operations are not limited', async () => {
    const media = client();
    await Promise.all(Array.from({ length: 30 }, () => media.getVideoList({ page_size: 20, page_number: 0 })));
    expect(clock.sleeps).toEqual([]);
  });

  it('rateLimit changes the rate; false turns it off; rateLimits sets one operation', async () => {
    await Promise.all(Array.from({ length: 7 }, () => top(client({ rateLimit: 5 }))));
    expect(clock.sleeps).toEqual([]);
    const five = client({ rateLimit: 5 });
    await Promise.all(Array.from({ length: 7 }, () => top(five)));
    expect(clock.sleeps).toEqual([200, 400]);

    clock.sleeps.length = 0;
    const off = client({ rateLimit: false });
    await Promise.all(Array.from({ length: 40 }, () => off.startWorkFlow({ vid: 'v1' })));
    expect(clock.sleeps).toEqual([]);

    const perOp = client({ rateLimits: { start_work_flow: 2 } });
    await Promise.all(Array.from({ length: 3 }, () => perOp.startWorkFlow({ vid: 'v1' })));
    await Promise.all(Array.from({ length: 20 }, () => top(perOp)));
    expect(clock.sleeps).toEqual([500]);
  });

  it('CLOUDFN_MEDIA_RATE_LIMIT sets the rate', async () => {
    const media = createMediaClient({
      baseUrl: server.url,
      accessToken: 't',
      clock,
      env: { CLOUDFN_MEDIA_RATE_LIMIT: '10' },
    });
    await Promise.all(Array.from({ length: 11 }, () => media.startWorkFlow({ vid: 'v1' })));
    expect(clock.sleeps).toEqual([100]);
  });

  it('an abort while waiting for a slot sends nothing', async () => {
    const never = {
      now: () => 0,
      sleep: (_ms: number, signal?: AbortSignal) =>
        new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    };
    const media = client({ clock: never, rateLimit: 1 });
    await media.startWorkFlow({ vid: 'v1' });
    const controller = new AbortController();
    const waiting = media.startWorkFlow({ vid: 'v2' }, { signal: controller.signal });
    controller.abort(new Error('deadline'));
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe('MEDIA_ABORTED');
    expect(server.to('start_work_flow')).toHaveLength(1);
  });
});
