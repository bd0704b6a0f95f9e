/** verifyRequest as the platform runs it: every line tampered, the time window, replay, key versions. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MemoryNonceStore,
  signRequest,
  SignatureError,
  verifyRequest,
  type NonceStore,
  type VerifyRequestOptions,
} from '../../src/sign/index.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const T = 1700000000;
const NOW = T * 1000;

function signed(overrides: Partial<Parameters<typeof signRequest>[0]> = {}) {
  return signRequest({
    privateKey,
    appid: 'wx1',
    keyVersion: '1',
    method: 'POST',
    url: '/v1/videos?page=2',
    body: '{"t":"你好😀"}',
    timestamp: T,
    ...overrides,
  });
}
function options(s: ReturnType<typeof signed>, overrides: Partial<VerifyRequestOptions> = {}): VerifyRequestOptions {
  return {
    authorization: s.authorization,
    method: 'POST',
    url: '/v1/videos?page=2',
    body: s.body,
    publicKeys: { '1': publicKey },
    now: NOW,
    nonceStore: false,
    ...overrides,
  };
}
async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignatureError) return error.code;
    throw error;
  }
  return 'valid';
}

describe('signRequest', () => {
  it('serializes an object body once and returns the bytes it signed', async () => {
    const s = signed({ body: { title: '你好', n: [1, 2] } });
    expect(s.body).toBe('{"title":"你好","n":[1,2]}');
    expect(s.stringToSign.endsWith('\n{"title":"你好","n":[1,2]}\n')).toBe(true);
    expect(await code(verifyRequest(options(s)))).toBe('valid');
  });
  it('defaults to now and a 32-character CSPRNG nonce, new each call', () => {
    const before = Math.floor(Date.now() / 1000);
    const a = signRequest({ privateKey, appid: 'wx1', keyVersion: 1, method: 'GET', url: '/' });
    const b = signRequest({ privateKey, appid: 'wx1', keyVersion: 1, method: 'GET', url: '/' });
    expect(a.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(a.nonce).not.toBe(b.nonce);
    expect(Number(a.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(a.timestamp)).toBeLessThanOrEqual(before + 2);
    expect(a.body).toBe('');
  });
  it('returns Buffer bodies as the same bytes', () => {
    const bytes = Buffer.from([0x7b, 0x7d, 0x0a]);
    expect(signed({ body: bytes }).body).toBe(bytes);
  });
});

describe('verifyRequest: tampering with any line fails', () => {
  const s = signed();
  const cases: Array<[string, Partial<VerifyRequestOptions>]> = [
    ['method', { method: 'PUT' }],
    ['path', { url: '/v1/video?page=2' }],
    ['query', { url: '/v1/videos?page=3' }],
    ['query left out', { url: '/v1/videos' }],
    ['timestamp', { authorization: s.authorization.replace(`timestamp="${T}"`, `timestamp="${T + 1}"`) }],
    ['nonce', { authorization: s.authorization.replace(/nonce_str="[0-9a-f]+"/, 'nonce_str="0000"') }],
    ['body', { body: '{"t":"你好😁"}' }],
    ['body re-serialized with \\u escapes', { body: '{"t":"\\u4f60\\u597d😀"}' }],
    ['body with a trailing LF', { body: s.body + '\n' }],
    [
      'signature',
      {
        authorization: s.authorization.replace(
          /signature="(.)/,
          (_m, c: string) => `signature="${c === 'A' ? 'B' : 'A'}`,
        ),
      },
    ],
    ['another key', { publicKeys: { '1': other.publicKey } }],
  ];
  it('the untouched request verifies', async () => {
    expect(await verifyRequest(options(s))).toEqual({ appid: 'wx1', keyVersion: '1', timestamp: T, nonce: s.nonce });
  });
  for (const [name, change] of cases) {
    it(name, async () => expect(await code(verifyRequest(options(s, change)))).toBe('SIGN_BAD_SIGNATURE'));
  }
  it('a signature that is not base64 of 256 bytes', async () => {
    const short = s.authorization.replace(/signature="[^"]+"/, 'signature="c2ln"');
    await expect(verifyRequest(options(s, { authorization: short }))).rejects.toThrow(
      /decodes to 3 bytes, an RSA-2048 signature has 256/,
    );
    const url = s.authorization.replace(/signature="[^"]+"/, 'signature="ab-_"');
    await expect(verifyRequest(options(s, { authorization: url }))).rejects.toThrow(/base64url/);
  });
  it('an absolute URL verifies like its path', async () => {
    expect(await code(verifyRequest(options(s, { url: 'https://api.example.com/v1/videos?page=2' })))).toBe('valid');
  });
  it('a parsed body is a TypeError, not a bad signature', async () => {
    await expect(verifyRequest(options(s, { body: { t: 1 } as unknown as string }))).rejects.toThrow(TypeError);
  });
});

describe('verifyRequest: the time window (fake clock)', () => {
  const s = signed();
  const at = (seconds: number, extra: Partial<VerifyRequestOptions> = {}) =>
    code(verifyRequest(options(s, { now: (T + seconds) * 1000, ...extra })));
  it('accepts exactly 3600 s old, refuses 3601', async () => {
    expect(await at(3600)).toBe('valid');
    expect(await at(3601)).toBe('SIGN_STALE_TIMESTAMP');
    await expect(verifyRequest(options(s, { now: (T + 3601) * 1000 }))).rejects.toThrow(
      'the timestamp is 3601 s old, more than the 3600 s allowed',
    );
  });
  it('accepts 3600 s ahead and refuses 3601 with a one-hour skew', async () => {
    expect(await at(-3600, { maxFutureSkewSeconds: 3600 })).toBe('valid');
    expect(await at(-3601, { maxFutureSkewSeconds: 3600 })).toBe('SIGN_FUTURE_TIMESTAMP');
  });
  it('allows 300 s of future skew by default', async () => {
    expect(await at(-300)).toBe('valid');
    expect(await at(-301)).toBe('SIGN_FUTURE_TIMESTAMP');
    await expect(verifyRequest(options(s, { now: (T - 301) * 1000 }))).rejects.toThrow(
      /301 s in the future, more than the 300 s/,
    );
  });
  it('honours maxAgeSeconds and a Date or function clock', async () => {
    expect(await at(61, { maxAgeSeconds: 60 })).toBe('SIGN_STALE_TIMESTAMP');
    expect(await code(verifyRequest(options(s, { now: new Date((T + 10) * 1000) })))).toBe('valid');
    expect(await code(verifyRequest(options(s, { now: () => (T + 10) * 1000 })))).toBe('valid');
  });
  it('says so when now is given in seconds', async () => {
    await expect(verifyRequest(options(s, { now: T }))).rejects.toThrow(
      /now is in milliseconds like Date.now\(\), got 1700000000, which looks like seconds/,
    );
  });
  it('a timestamp in milliseconds is far in the future', async () => {
    expect(() => signed({ timestamp: T * 1000 })).toThrow(/got 1700000000000, which looks like milliseconds/);
    const s = signed();
    const ms = s.authorization.replace(`timestamp="${T}"`, `timestamp="${T}000"`);
    await expect(verifyRequest(options(s, { authorization: ms }))).rejects.toThrow(/in the future.*not milliseconds/);
  });
  it('a timestamp that is not digits', async () => {
    const bad = s.authorization.replace(`timestamp="${T}"`, 'timestamp="1.7e9"');
    expect(await code(verifyRequest(options(s, { authorization: bad })))).toBe('SIGN_BAD_TIMESTAMP');
  });
});

describe('verifyRequest: replay', () => {
  it('refuses the same request twice, per appid, in the default or a given store', async () => {
    const s = signed({ timestamp: Math.floor(Date.now() / 1000) });
    const opts = options(s, { now: undefined, nonceStore: undefined });
    expect(await code(verifyRequest(opts))).toBe('valid');
    expect(await code(verifyRequest(opts))).toBe('SIGN_REPLAY');
  });
  it('forgets a nonce once its window is over', async () => {
    const store = new MemoryNonceStore();
    const s = signed();
    expect(await code(verifyRequest(options(s, { nonceStore: store })))).toBe('valid');
    expect(await code(verifyRequest(options(s, { nonceStore: store, now: NOW + 3000_000 })))).toBe('SIGN_REPLAY');
    expect(store.size).toBe(1);
  });
  it('does not record the nonce of a forged request', async () => {
    const store = new MemoryNonceStore();
    const s = signed();
    expect(await code(verifyRequest(options(s, { nonceStore: store, body: 'forged' })))).toBe('SIGN_BAD_SIGNATURE');
    expect(store.size).toBe(0);
    expect(await code(verifyRequest(options(s, { nonceStore: store })))).toBe('valid');
  });
  it('awaits an async store and keys nonces by appid', async () => {
    const keys: string[] = [];
    const store: NonceStore = {
      async seen(key, ttl) {
        keys.push(`${key}@${ttl}`);
        return keys.length > 1;
      },
    };
    const s = signed({ nonce: 'fixed' });
    expect(await code(verifyRequest(options(s, { nonceStore: store })))).toBe('valid');
    expect(await code(verifyRequest(options(s, { nonceStore: store })))).toBe('SIGN_REPLAY');
    expect(keys).toEqual(['wx1:fixed@3900', 'wx1:fixed@3900']);
  });
  it('MemoryNonceStore stays within max, oldest first', () => {
    const store = new MemoryNonceStore({ max: 3 });
    for (const key of ['a', 'b', 'c', 'd']) expect(store.seen(key, 100, 0)).toBe(false);
    expect(store.size).toBe(3);
    expect(store.seen('d', 100, 1)).toBe(true);
    expect(store.seen('a', 100, 1)).toBe(false);
    expect(store.seen('a', 100, 200)).toBe(false);
    expect(() => new MemoryNonceStore({ max: 0 })).toThrow(/option max must be a positive integer, got 0/);
  });
});

describe('verifyRequest: key versions', () => {
  const s = signed({ keyVersion: '7' });
  it('takes a Map, an object or a resolver', async () => {
    expect(await code(verifyRequest(options(s, { publicKeys: new Map([['7', publicKey]]) })))).toBe('valid');
    expect(
      await code(
        verifyRequest(
          options(s, { publicKeys: { '6': other.publicKey, '7': publicKey.export({ format: 'pem', type: 'spki' }) } }),
        ),
      ),
    ).toBe('valid');
    const asked: string[] = [];
    const resolver = async (appid: string, version: string) => {
      asked.push(`${appid}/${version}`);
      return version === '7' ? publicKey : undefined;
    };
    expect(await code(verifyRequest(options(s, { publicKeys: resolver })))).toBe('valid');
    expect(asked).toEqual(['wx1/7']);
  });
  it('an unknown key_version names it', async () => {
    await expect(verifyRequest(options(s, { publicKeys: { '1': publicKey } }))).rejects.toThrow(
      /no app public key with key_version "7" is known for appid wx1/,
    );
    expect(await code(verifyRequest(options(s, { publicKeys: () => undefined })))).toBe('SIGN_UNKNOWN_KEY_VERSION');
    expect(
      await code(
        verifyRequest(options(s, { publicKeys: { toString: publicKey } as unknown as Record<string, string> })),
      ),
    ).toBe('SIGN_UNKNOWN_KEY_VERSION');
  });
  it('a header without authorization', async () => {
    expect(await code(verifyRequest(options(s, { authorization: undefined })))).toBe('SIGN_NO_AUTHORIZATION');
  });
});
