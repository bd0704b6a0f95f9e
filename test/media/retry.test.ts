/**
 * Retries with back-off and jitter, the operations that are never resent, and the token:
 * cache, shared refresh, one refresh and retry on a token error. The clock is fake, so
 * back-off is recorded instead of waited.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMediaClient, type MediaApiError, MediaError } from '../../src/media/index.js';
import type { MediaClientOptions } from '../../src/media/index.js';
import { FakeClock, makeKeys, MediaServer, sampleResponder } from './media-server.js';
import type { Keys, Received, Reply } from './media-server.js';
import { samples } from './samples.js';

let keys: Keys;
let server: MediaServer;
let clock: FakeClock;

beforeAll(async () => {
  keys = makeKeys();
  server = await new MediaServer(keys).start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
  server.responder = sampleResponder;
  clock = new FakeClock();
});

function client(extra: MediaClientOptions = {}) {
  return createMediaClient({
    baseUrl: server.url,
    accessToken: 'tok-static',
    signing: { appid: 'tt-app', privateKey: keys.appPrivate, keyVersion: '7' },
    platformPublicKey: keys.platformPublic,
    retries: 2,
    retryDelayMs: 200,
    maxRetryDelayMs: 5000,
    random: () => 0.5,
    clock,
    env: {},
    ...extra,
  });
}

/** Answers from a list, the last one repeating. */
function script(...replies: Reply[]): (req: Received) => Reply | Promise<Reply> {
  let i = 0;
  return (req) =>
    req.path === '/oauth/client_token/' ? sampleResponder(req) : (replies[Math.min(i++, replies.length - 1)] as Reply);
}
const fail = (status: number): Reply => ({ status, body: { err_no: status, err_msg: 'busy' }, sign: false });
const ok = (operation: string): Reply => ({ body: samples[operation] });

async function rejection(promise: Promise<unknown>): Promise<MediaError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MediaError);
    return error as MediaError;
  }
  throw new Error('expected a rejection');
}

describe('retries', () => {
  it('retries a read on 503 with doubling, jittered back-off', async () => {
    server.responder = script(fail(503), fail(503), ok('get_video_list'));
    const res = await client().getVideoList({ page_size: 20, page_number: 0 });
    expect(res.total_num).toBe(2);
    expect(server.received).toHaveLength(3);
    // random 0.5 of 200·2^0 and 200·2^1
    expect(clock.sleeps).toEqual([100, 200]);
  });

  it('jitter spreads the delay over [0, ceiling), capped by maxRetryDelayMs', async () => {
    server.responder = script(fail(500));
    const draws = [0.99, 0.1, 0.99, 0.99];
    await rejection(
      client({ retries: 4, retryDelayMs: 1000, maxRetryDelayMs: 3000, random: () => draws.shift() ?? 0 }).getVideoList({
        page_size: 20,
        page_number: 0,
      }),
    );
    expect(clock.sleeps).toEqual([990, 200, 2970, 2970]);
    expect(server.received).toHaveLength(5);
  });

  it('gives up after `retries` and throws the last answer', async () => {
    server.responder = script(fail(502));
    const error = (await rejection(client().getVideoByVid({ vid: 'v1' }))) as MediaApiError;
    expect(error).toMatchObject({ status: 502, errNo: 502 });
    expect(server.received).toHaveLength(3);
  });

  it('honours Retry-After on 429', async () => {
    server.responder = script({ ...fail(429), headers: { 'retry-after': '2' } }, ok('get_work_flow_exection'));
    await client().getWorkFlowExecution({ run_id: 'r' });
    expect(clock.sleeps).toEqual([2000]);
  });

  it('honours Retry-After given as an HTTP date, measured on the client clock', async () => {
    const at = new Date(clock.now() + 3000).toUTCString();
    server.responder = script({ ...fail(503), headers: { 'retry-after': at } }, ok('get_work_flow_exection'));
    await client().getWorkFlowExecution({ run_id: 'r' });
    expect(clock.sleeps).toEqual([3000]);
  });

  it('falls back to its own back-off when Retry-After is a past date or unreadable', async () => {
    const past = new Date(clock.now() - 60_000).toUTCString();
    server.responder = script(
      { ...fail(503), headers: { 'retry-after': past } },
      { ...fail(503), headers: { 'retry-after': 'soon' } },
      ok('get_work_flow_exection'),
    );
    await client().getWorkFlowExecution({ run_id: 'r' });
    expect(clock.sleeps).toEqual([100, 200]);
  });

  it('does not retry a parameter error', async () => {
    server.responder = script(
      { status: 400, body: { err_no: 40001, err_msg: 'param error' }, sign: false },
      ok('get_video_list'),
    );
    await rejection(client().getVideoList({ page_size: 20, page_number: 0 }));
    expect(server.received).toHaveLength(1);
  });

  it('retries a read after a timeout', async () => {
    server.responder = script({ ...ok('get_video_list'), delayMs: 300 }, ok('get_video_list'));
    await expect(client({ timeoutMs: 80 }).getVideoList({ page_size: 20, page_number: 0 })).resolves.toMatchObject({
      total_num: 2,
    });
    expect(server.received).toHaveLength(2);
  });

  it('retries a read after a connection reset', async () => {
    let first = true;
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (first) {
        first = false;
        return Promise.reject(
          new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }),
        );
      }
      return globalThis.fetch(input, init);
    };
    await client({ fetch }).getVideoList({ page_size: 20, page_number: 0 });
    expect(server.received).toHaveLength(1);
    expect(clock.sleeps).toEqual([100]);
  });

  it.each([
    ['deleteVideo', 'delete_video', (m: ReturnType<typeof client>) => m.deleteVideo({ vid: 'v1', env_id: 'e' })],
    [
      'uploadVideoByUrls',
      'upload_video_by_urls',
      (m: ReturnType<typeof client>) =>
        m.uploadVideoByUrls({ url_sets: [{ source_url: 'https://cdn.example.com/a.mp4', file_name: 'a' }] }),
    ],
    ['startWorkFlow', 'start_work_flow', (m: ReturnType<typeof client>) => m.startWorkFlow({ vid: 'v1' })],
  ])('%s is never resent once it may have reached the platform', async (_name, operation, run) => {
    for (const reply of [fail(503), fail(500), fail(429)]) {
      server.received.length = 0;
      server.responder = script(reply, ok(operation));
      await rejection(run(client()));
      expect(server.received).toHaveLength(1);
    }
    server.received.length = 0;
    server.responder = script({ ...ok(operation), delayMs: 300 }, ok(operation));
    expect((await rejection(run(client({ timeoutMs: 80 })))).code).toBe('MEDIA_TIMEOUT');
    expect(server.received).toHaveLength(1);

    let calls = 0;
    const reset: typeof globalThis.fetch = () => {
      calls++;
      return Promise.reject(
        new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) }),
      );
    };
    expect((await rejection(run(client({ fetch: reset })))).code).toBe('MEDIA_NETWORK');
    expect(calls).toBe(1);
  });

  it('resends a changing call when the connection was refused (it never reached the platform)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    let calls = 0;
    const counting: typeof globalThis.fetch = (input, init) => {
      calls++;
      return globalThis.fetch(input, init);
    };
    const error = await rejection(
      client({ baseUrl: `http://127.0.0.1:${port}`, fetch: counting }).startWorkFlow({ vid: 'v1' }),
    );
    expect(error.code).toBe('MEDIA_NETWORK');
    expect(error.message).toContain('ECONNREFUSED');
    expect(calls).toBe(3);
  });
});

describe('token', () => {
  /** Token endpoint hands out tok-1, tok-2, ...; operations refuse tokens listed in `refused`. */
  function tokenPlatform(
    refused: Set<string>,
    refusal: Reply = { status: 401, body: { err_no: 28001008, err_msg: 'access_token expired' }, sign: false },
    tokenDelayMs = 0,
  ) {
    let issued = 0;
    server.responder = (req) => {
      if (req.path === '/oauth/client_token/')
        return {
          body: { err_no: 0, data: { access_token: `tok-${++issued}`, expires_in: 7200 } },
          delayMs: tokenDelayMs,
        };
      if (refused.has(String(req.headers['access-token']))) return refusal;
      return sampleResponder(req);
    };
  }
  const tokenCalls = () => server.received.filter((r) => r.path === '/oauth/client_token/');
  const credentials = { credentials: { clientKey: 'ck', clientSecret: 'cs' }, accessToken: undefined } as const;

  it('exchanges credentials at /oauth/client_token/ (signed) and caches the token until shortly before expiry', async () => {
    tokenPlatform(new Set());
    const media = client(credentials);
    await media.getVideoList({ page_size: 20, page_number: 0 });
    await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(tokenCalls()).toHaveLength(1);
    const exchange = tokenCalls()[0]!;
    expect(exchange.method).toBe('POST');
    expect(exchange.json).toEqual({ client_key: 'ck', client_secret: 'cs', grant_type: 'client_credential' });
    expect(exchange.verified).toMatchObject({ appid: 'tt-app' });
    expect(server.to('get_video_list').map((r) => r.headers['access-token'])).toEqual(['tok-1', 'tok-1']);

    clock.time += 7200_000 - 60_000 - 1;
    await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(tokenCalls()).toHaveLength(1);
    clock.time += 2;
    await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(tokenCalls()).toHaveLength(2);
    expect(server.to('get_video_list').at(-1)!.headers['access-token']).toBe('tok-2');
  });

  it('concurrent callers share one token exchange', async () => {
    tokenPlatform(new Set(), undefined, 50);
    const media = client(credentials);
    await Promise.all(Array.from({ length: 6 }, () => media.getVideoList({ page_size: 20, page_number: 0 })));
    expect(tokenCalls()).toHaveLength(1);
    expect(server.to('get_video_list')).toHaveLength(6);
  });

  it('a token error (HTTP 401) triggers one refresh and one retry, even for start_work_flow', async () => {
    tokenPlatform(new Set(['tok-1']));
    const media = client(credentials);
    await expect(media.startWorkFlow({ vid: 'v1' })).resolves.toMatchObject({ run_id: 'run-1' });
    expect(server.to('start_work_flow').map((r) => r.headers['access-token'])).toEqual(['tok-1', 'tok-2']);
    expect(tokenCalls()).toHaveLength(2);
  });

  it('a token err_no in a 200 body counts as a token error', async () => {
    tokenPlatform(new Set(['tok-1']), { body: { err_no: 28001003, err_msg: 'access_token invalid' } });
    await client(credentials).getVideoList({ page_size: 20, page_number: 0 });
    expect(server.to('get_video_list')).toHaveLength(2);
  });

  it('concurrent callers refused the same token share one refresh', async () => {
    tokenPlatform(new Set(['tok-1']));
    const media = client(credentials);
    await media.getVideoList({ page_size: 20, page_number: 0 }).catch(() => undefined);
    // tok-2 is now current; make the platform refuse it and fire five calls at once.
    const before = tokenCalls().length;
    tokenPlatform(new Set(['tok-1', 'tok-2']));
    server.responder = ((inner) => (req: Received) => {
      if (req.path === '/oauth/client_token/')
        return { body: { data: { access_token: 'tok-3', expires_in: 7200 } }, delayMs: 30 };
      return inner(req);
    })(server.responder);
    await Promise.all(Array.from({ length: 5 }, () => media.getVideoList({ page_size: 20, page_number: 0 })));
    expect(tokenCalls().length - before).toBe(1);
    expect(
      server
        .to('get_video_list')
        .slice(-5)
        .map((r) => r.headers['access-token']),
    ).toEqual(Array(5).fill('tok-3'));
  });

  it('a 401 without err_no is a token error; a 401 naming another err_no is not', async () => {
    tokenPlatform(new Set(['tok-1']), { status: 401, body: '', sign: false });
    await client(credentials).getVideoList({ page_size: 20, page_number: 0 });
    expect(server.to('get_video_list')).toHaveLength(2);

    server.received.length = 0;
    tokenPlatform(new Set(['tok-1']), {
      status: 401,
      body: { err_no: 40104, err_msg: 'Platform-Authorization was refused' },
      sign: false,
    });
    const error = (await rejection(
      client(credentials).getVideoList({ page_size: 20, page_number: 0 }),
    )) as MediaApiError;
    expect(error).toMatchObject({ status: 401, errNo: 40104 });
    expect(server.to('get_video_list')).toHaveLength(1);
    expect(tokenCalls()).toHaveLength(1);
  });

  it('refreshes only once: a second refusal is thrown', async () => {
    tokenPlatform(new Set(['tok-1', 'tok-2', 'tok-3']));
    const error = (await rejection(
      client(credentials).getVideoList({ page_size: 20, page_number: 0 }),
    )) as MediaApiError;
    expect(error).toMatchObject({ status: 401, errNo: 28001008 });
    expect(server.to('get_video_list')).toHaveLength(2);
    expect(tokenCalls()).toHaveLength(2);
  });

  it('a fixed accessToken is not retried on a token error', async () => {
    tokenPlatform(new Set(['tok-static']));
    await rejection(client().getVideoList({ page_size: 20, page_number: 0 }));
    expect(server.received).toHaveLength(1);
  });

  it('a tokenProvider is asked again with forceRefresh after a refusal', async () => {
    tokenPlatform(new Set(['p-1']));
    const asked: boolean[] = [];
    const media = client({
      accessToken: undefined,
      tokenProvider: ({ forceRefresh }) => (asked.push(forceRefresh), `p-${asked.length}`),
    });
    await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(asked).toEqual([false, true]);
    expect(server.to('get_video_list').map((r) => r.headers['access-token'])).toEqual(['p-1', 'p-2']);
  });

  it('a tokenProvider returning { accessToken, expiresIn } is cached', async () => {
    let asked = 0;
    const media = client({
      accessToken: undefined,
      tokenProvider: async () => ({ accessToken: `p-${++asked}`, expiresIn: 600 }),
    });
    await media.getVideoList({ page_size: 20, page_number: 0 });
    await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(asked).toBe(1);
  });

  it('fetchClientToken replaces the assumed exchange', async () => {
    const media = client({
      ...credentials,
      tokenUrl: `${server.url}/custom/token`,
      fetchClientToken: async ({ clientKey, tokenUrl, post }) => {
        const { body } = await post(tokenUrl, { key: clientKey });
        return { accessToken: (body as { token: string }).token, expiresIn: 60 };
      },
    });
    server.responder = (req) =>
      req.path === '/custom/token' ? { body: { token: 'custom-tok' } } : sampleResponder(req);
    await media.getVideoList({ page_size: 20, page_number: 0 });
    expect(server.received[0]).toMatchObject({ path: '/custom/token', json: { key: 'ck' } });
    expect(server.received[1]!.headers['access-token']).toBe('custom-tok');
  });

  it('a refused credential exchange is MEDIA_TOKEN and the operation is not sent', async () => {
    server.responder = (req) =>
      req.path === '/oauth/client_token/'
        ? { body: { err_no: 10008, err_msg: 'bad client_secret', data: null } }
        : sampleResponder(req);
    const error = await rejection(client(credentials).getVideoList({ page_size: 20, page_number: 0 }));
    expect(error.code).toBe('MEDIA_TOKEN');
    expect(error.message).toContain('err_no 10008 bad client_secret');
    expect(server.to('get_video_list')).toHaveLength(0);
  });

  it('an answer without data.access_token is MEDIA_TOKEN naming fetchClientToken', async () => {
    server.responder = (req) => (req.path === '/oauth/client_token/' ? { body: { token: 'x' } } : sampleResponder(req));
    const error = await rejection(client(credentials).getVideoList({ page_size: 20, page_number: 0 }));
    expect(error.message).toContain('without data.access_token; pass fetchClientToken');
  });
});
