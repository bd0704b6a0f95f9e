/**
 * Options: code, then `CLOUDFN_MEDIA_*` env vars, then defaults, each checked with a message
 * that names the option or variable and the fix.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMediaClient, MediaError, resolveMediaOptions, TOKEN_ERROR_ERR_NOS } from '../../src/media/index.js';
import type { MediaClientOptions } from '../../src/media/index.js';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
const publicPem = pair.publicKey.export({ format: 'pem', type: 'spki' }) as string;
const escaped = (pem: string) => pem.trim().replace(/\n/g, '\\n');

function optionsError(options: MediaClientOptions): string {
  try {
    resolveMediaOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe('MEDIA_OPTIONS');
    return (error as Error).message;
  }
  throw new Error('expected MEDIA_OPTIONS');
}

describe('defaults', () => {
  it('fills every default', () => {
    const r = resolveMediaOptions({ baseUrl: 'https://open.example.com/', accessToken: 't', env: {} });
    expect(r).toMatchObject({
      baseUrl: 'https://open.example.com',
      timeoutMs: 10_000,
      retries: 2,
      retryDelayMs: 200,
      maxRetryDelayMs: 5000,
      tokenRefreshMarginMs: 60_000,
      signing: undefined,
      platformPublicKey: undefined,
      envId: undefined,
    });
    expect(r.token).toEqual({ kind: 'static', token: 't' });
    expect([...r.tokenErrorCodes]).toEqual([...TOKEN_ERROR_ERR_NOS]);
    expect([...r.rateLimits]).toEqual([
      ['start_work_flow', 20],
      ['describe_vod_played_top_data', 20],
      ['describe_vod_played_static_data', 20],
    ]);
  });
});

describe('env vars', () => {
  const env = {
    CLOUDFN_MEDIA_BASE_URL: 'https://open.example.com/gw',
    CLOUDFN_MEDIA_CLIENT_KEY: 'ck',
    CLOUDFN_MEDIA_CLIENT_SECRET: 'cs',
    CLOUDFN_MEDIA_TOKEN_URL: 'https://auth.example.com/token',
    CLOUDFN_MEDIA_TOKEN_REFRESH_MARGIN_MS: '30000',
    CLOUDFN_MEDIA_TOKEN_ERROR_CODES: '1, 2',
    CLOUDFN_MEDIA_APPID: 'tt-app',
    CLOUDFN_MEDIA_PRIVATE_KEY: escaped(privatePem),
    CLOUDFN_MEDIA_KEY_VERSION: '3',
    CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY: escaped(publicPem),
    CLOUDFN_MEDIA_ENV_ID: 'env-9',
    CLOUDFN_MEDIA_TIMEOUT_MS: '2500',
    CLOUDFN_MEDIA_RETRIES: '4',
    CLOUDFN_MEDIA_RETRY_DELAY_MS: '50',
    CLOUDFN_MEDIA_MAX_RETRY_DELAY_MS: '800',
    CLOUDFN_MEDIA_RATE_LIMIT: '10',
    CLOUDFN_MEDIA_RATE_LIMITS: 'start_work_flow=3, describe_vod_played_static_data=0',
  };

  it('reads every option from its variable', () => {
    const r = resolveMediaOptions({ env });
    expect(r.baseUrl).toBe('https://open.example.com/gw');
    expect(r.token).toMatchObject({
      kind: 'credentials',
      clientKey: 'ck',
      clientSecret: 'cs',
      tokenUrl: 'https://auth.example.com/token',
    });
    expect(r.tokenRefreshMarginMs).toBe(30_000);
    expect([...r.tokenErrorCodes]).toEqual([1, 2]);
    expect(r.signing?.appid).toBe('tt-app');
    expect(r.signing?.keyVersion).toBe('3');
    expect(r.signing?.privateKey.type).toBe('private');
    expect(r.platformPublicKey?.type).toBe('public');
    expect(r).toMatchObject({ envId: 'env-9', timeoutMs: 2500, retries: 4, retryDelayMs: 50, maxRetryDelayMs: 800 });
    expect([...r.rateLimits]).toEqual([
      ['start_work_flow', 3],
      ['describe_vod_played_top_data', 10],
    ]);
  });

  it('the token URL defaults to {baseUrl}/oauth/client_token/', () => {
    const { CLOUDFN_MEDIA_TOKEN_URL: _, ...rest } = env;
    expect(resolveMediaOptions({ env: rest }).token).toMatchObject({
      tokenUrl: 'https://open.example.com/gw/oauth/client_token/',
    });
  });

  it('CLOUDFN_MEDIA_ACCESS_TOKEN wins over client credentials in env', () => {
    expect(resolveMediaOptions({ env: { ...env, CLOUDFN_MEDIA_ACCESS_TOKEN: 'fixed' } }).token).toEqual({
      kind: 'static',
      token: 'fixed',
    });
  });

  it('options in code win over env vars', () => {
    const r = resolveMediaOptions({
      env,
      baseUrl: 'http://127.0.0.1:1',
      accessToken: 'code',
      timeoutMs: 99,
      envId: 'code-env',
      rateLimit: false,
    });
    expect(r).toMatchObject({
      baseUrl: 'http://127.0.0.1:1',
      token: { kind: 'static', token: 'code' },
      timeoutMs: 99,
      envId: 'code-env',
    });
    expect([...r.rateLimits]).toEqual([['start_work_flow', 3]]);
  });

  it('a private key may be given as a file path', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'media-key-'));
    try {
      const file = join(dir, 'app_private_key.pem');
      writeFileSync(file, privatePem);
      expect(resolveMediaOptions({ env: { ...env, CLOUDFN_MEDIA_PRIVATE_KEY: file } }).signing?.privateKey.type).toBe(
        'private',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('errors name the option and the fix', () => {
  it.each<[MediaClientOptions, string]>([
    [{ env: {} }, 'media option baseUrl is invalid: it is required; pass baseUrl or set CLOUDFN_MEDIA_BASE_URL'],
    [{ env: { CLOUDFN_MEDIA_BASE_URL: 'open.example.com' } }, '"open.example.com" is not an absolute URL'],
    [{ baseUrl: 'ftp://x', env: {} }, '"ftp://x" must use http or https'],
    [
      { baseUrl: 'https://x', env: {} },
      'no token source; pass accessToken, tokenProvider or credentials, or set CLOUDFN_MEDIA_ACCESS_TOKEN',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', credentials: { clientKey: 'a', clientSecret: 'b' }, env: {} },
      'media option accessToken and credentials is invalid: give only one',
    ],
    [
      { baseUrl: 'https://x', env: { CLOUDFN_MEDIA_CLIENT_KEY: 'a' } },
      'CLOUDFN_MEDIA_CLIENT_SECRET is invalid: is empty while CLOUDFN_MEDIA_CLIENT_KEY is set',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', env: { CLOUDFN_MEDIA_TIMEOUT_MS: 'soon' } },
      'media option CLOUDFN_MEDIA_TIMEOUT_MS is invalid: must be a number of at least 1, got "soon"',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', retries: -1, env: {} },
      'media option retries is invalid: must be a number of at least 0, got -1',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', env: { CLOUDFN_MEDIA_APPID: 'tt' } },
      'CLOUDFN_MEDIA_PRIVATE_KEY is invalid: is empty while other signing variables are set; set CLOUDFN_MEDIA_PRIVATE_KEY and CLOUDFN_MEDIA_KEY_VERSION too',
    ],
    [
      {
        baseUrl: 'https://x',
        accessToken: 't',
        signing: { appid: 'tt', privateKey: publicPem, keyVersion: '1' },
        env: {},
      },
      'media option signing.privateKey is invalid: the key cannot be read: got a public key',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', env: { CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY: 'not a key' } },
      'media option CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY is invalid',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', env: { CLOUDFN_MEDIA_RATE_LIMITS: 'start_work_flow:3' } },
      '"start_work_flow:3" is not operation=number',
    ],
    [
      { baseUrl: 'https://x', accessToken: 't', rateLimits: { get_work_flow_execution: 3 } as never, env: {} },
      'rateLimits.get_work_flow_execution is invalid',
    ],
  ])('%j', (options, fragment) => {
    expect(optionsError(options)).toContain(fragment);
  });

  it('createMediaClient throws at once on a bad option', () => {
    expect(() => createMediaClient({ env: {} })).toThrow(MediaError);
  });
});
