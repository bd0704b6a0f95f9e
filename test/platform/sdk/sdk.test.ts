/**
 * The stand-in's `dySDK`: getContext from the gateway headers, openApiInvoke against the
 * emulator, against the configured local URL and with neither, and the error for a member it
 * does not emulate.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaClientEnv, type Platform } from '../../../src/platform/index.js';
import { PlatformError } from '../../../src/platform/errors.js';
import { createDySdk } from '../../../src/platform/sdk/sdk.js';
import { startDevPlatform } from '../../../src/dev/with-platform.js';
import { startPlatform, tempDir } from '../helpers.js';

describe('getContext()', () => {
  const sdk = createDySdk({});

  it('reads the caller and live-room fields from the gateway headers', () => {
    const service = {
      headers: {
        'x-tt-openid': 'open-1',
        'x-tt-appid': 'tt-app',
        'x-tt-unionid': 'union-1',
        'x-tt-anonymous-openid': 'anon-1',
        'x-tt-env': 'dev',
        'x-tt-source': 'mini_program',
        'x-room-id': '7300000001',
        'x-anchor-openid': 'anchor-1',
        'x-avatar-url': 'https://example.com/a.png',
        'x-nick-name': encodeURIComponent('小明'),
        'x-forwarded-for': '10.0.0.7, 10.0.0.1',
      },
    };
    expect(sdk.context(service).getContext()).toEqual({
      openId: 'open-1',
      appId: 'tt-app',
      unionId: 'union-1',
      anonymousOpenId: 'anon-1',
      env: 'dev',
      source: 'mini_program',
      roomId: '7300000001',
      anchorOpenId: 'anchor-1',
      avatarUrl: 'https://example.com/a.png',
      nickName: '小明',
      clientIp: '10.0.0.7',
    });
  });

  it('leaves out what the request does not carry (an anonymous call)', () => {
    expect(sdk.context({ headers: { 'x-tt-anonymous-openid': 'anon-2' } }).getContext()).toEqual({
      anonymousOpenId: 'anon-2',
    });
  });

  it('refuses something that is not the function second argument, saying what to pass', () => {
    expect(() => sdk.context(undefined)).toThrow(
      "dySDK.context(context) needs the function's second argument (service, which has headers), got undefined",
    );
  });
});

describe('a member the stand-in does not emulate', () => {
  const sdk = createDySdk({});
  it('throws PLATFORM_SDK_NOT_EMULATED naming it', () => {
    let error: unknown;
    try {
      void (sdk as unknown as Record<string, unknown>)['storage'];
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'PLATFORM_SDK_NOT_EMULATED' });
    expect((error as Error).message).toMatch(/^dySDK\.storage is not emulated by cloudfn's local stand-in/);
    const context = sdk.context({ headers: {} }) as unknown as Record<string, unknown>;
    expect(() => context['callContainer']).toThrow(/^dySDK\.context\(context\)\.callContainer is not emulated/);
  });

  it('still reads as a plain object for await and inspection', async () => {
    expect(await Promise.resolve(sdk.context({ headers: {} })).then(() => 'ok')).toBe('ok');
  });
});

describe('openApiInvoke()', () => {
  let data: { dir: string; remove: () => void };
  let platform: Platform;
  let local: Server;
  let localUrl: string;
  const seen: { method: string; url: string; token: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    data = tempDir();
    ({ platform } = await startPlatform(data.dir, { ffmpeg: false }));
    local = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', token: req.headers['access-token'] as string, body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ err_no: 0, data: { echoed: JSON.parse(body || 'null') } }));
      });
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => local.close(resolve));
    await platform.close();
    data.remove();
  });

  it('sends the interfaces the emulator implements to it, with an access-token', async () => {
    const sdk = createDySdk(mediaClientEnv(platform));
    const answer = await sdk.context({ headers: {} }).openApiInvoke({
      url: 'https://open.douyin.com/api/cloud_voc/get_video_list',
      method: 'POST',
      data: { page_size: 1, page_number: 0 },
    });
    expect(answer).toMatchObject({ err_no: 0 });
  });

  it('signs calls to the emulator with the app key cloudfn dev --platform registered', async () => {
    const home = tempDir('cloudfn-sdk-dev-');
    const dev = await startDevPlatform(home.dir, { port: 0, dataDir: home.dir, log: () => {} });
    try {
      const sdk = createDySdk(dev.env);
      const answer = await sdk.context({ headers: {} }).openApiInvoke({
        url: '/api/cloud_voc/get_video_list',
        method: 'POST',
        data: { page_size: 1, page_number: 0 },
      });
      expect(answer).toMatchObject({ err_no: 0 });
      // Unsigned, the same call is refused: the emulator knows the app's key.
      const { CLOUDFN_MEDIA_PRIVATE_KEY: _key, ...unsigned } = dev.env;
      const refused = await createDySdk(unsigned)
        .context({ headers: {} })
        .openApiInvoke({
          url: '/api/cloud_voc/get_video_list',
          method: 'POST',
          data: { page_size: 1, page_number: 0 },
        });
      expect(refused).not.toMatchObject({ err_no: 0 });
    } finally {
      await dev.close();
      home.remove();
    }
  });

  it('sends any other interface to CLOUDFN_SDK_OPENAPI_URL, with one cached token', async () => {
    const sdk = createDySdk({ ...mediaClientEnv(platform), CLOUDFN_SDK_OPENAPI_URL: localUrl });
    const context = sdk.context({ headers: {} });
    const first = await context.openApiInvoke({
      url: 'http://developer.toutiao.com/api/v2/tags/text/antidirt?x=1',
      method: 'POST',
      data: { tasks: [{ content: 'hi' }] },
    });
    expect(first).toEqual({ err_no: 0, data: { echoed: { tasks: [{ content: 'hi' }] } } });
    await context.openApiInvoke({ url: '/api/apps/qrcode', method: 'GET' });
    expect(seen.map((s) => [s.method, s.url])).toEqual([
      ['POST', '/api/v2/tags/text/antidirt?x=1'],
      ['GET', '/api/apps/qrcode'],
    ]);
    expect(seen[0]!.token).toMatch(/\S+/);
    expect(seen[1]!.token).toBe(seen[0]!.token);
  });

  it('without a target, fails naming CLOUDFN_SDK_OPENAPI_URL', async () => {
    const sdk = createDySdk({});
    await expect(
      sdk.context({ headers: {} }).openApiInvoke({ url: 'https://open.douyin.com/api/apps/v2/qrcode/create/' }),
    ).rejects.toThrow(
      'openApiInvoke cannot send https://open.douyin.com/api/apps/v2/qrcode/create/ anywhere locally: the emulator does not implement /api/apps/v2/qrcode/create/ and CLOUDFN_SDK_OPENAPI_URL is unset; set CLOUDFN_SDK_OPENAPI_URL',
    );
    await expect(
      sdk.context({ headers: {} }).openApiInvoke({ url: '/api/cloud_voc/get_video_list' }),
    ).rejects.toMatchObject({ code: 'PLATFORM_SDK_NO_OPENAPI_TARGET' });
  });
});
