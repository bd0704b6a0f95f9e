/**
 * The signing scheme from the platform's side: app keys registered with `cloudfn platform keys add`,
 * requests signed by the openssl CLI, the one-hour window, replays, and the media client
 * signing its calls.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { run } from '../../src/cli/platform.js';
import { OptionsError } from '../../src/cli/args.js';
import { createMediaClient } from '../../src/media/index.js';
import type { Platform } from '../../src/platform/index.js';
import {
  opensslAuthorization,
  opensslKeyPair,
  post,
  startPlatform,
  tempDir,
  tokenFor,
  verifySignedWithOpenssl,
} from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let platform: Platform;
let keys: { privateKeyPath: string; publicKeyPath: string };
let dataDir = '';
const appid = 'tt-signed-app';
const path = '/api/cloud_voc/get_video_list';
const body = JSON.stringify({ page_size: 10, page_number: 0 });

beforeAll(async () => {
  tmp = tempDir();
  dataDir = join(tmp.dir, 'data');
  keys = opensslKeyPair(tmp.dir);
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    expect(
      await run([
        'keys',
        'add',
        '--data',
        dataDir,
        '--appid',
        appid,
        '--key-version',
        '2',
        '--public-key',
        keys.publicKeyPath,
      ]),
    ).toBe(0);
    expect(String(write.mock.calls[0]?.[0])).toMatch(/registered key_version 2 for appid tt-signed-app/);
  } finally {
    write.mockRestore();
  }
  ({ platform } = await startPlatform(dataDir, { ffmpeg: false }));
});
afterAll(async () => {
  await platform.close();
  tmp.remove();
});

describe('cloudfn platform keys add', () => {
  test('stores the normalized SPKI PEM by appid and key_version', () => {
    const registry = JSON.parse(readFileSync(join(dataDir, 'app_keys.json'), 'utf8')) as {
      keys: Record<string, Record<string, string>>;
    };
    expect(registry.keys[appid]?.['2']).toBe(readFileSync(keys.publicKeyPath, 'utf8'));
  });
  test('refuses a private key or a missing flag as one-line option errors', async () => {
    // A private key given as the public one: refused once, checked for its class and message.
    const adding = run([
      'keys',
      'add',
      '--data',
      dataDir,
      '--appid',
      appid,
      '--key-version',
      '3',
      '--public-key',
      keys.privateKeyPath,
    ]);
    await expect(adding).rejects.toThrow(OptionsError);
    await expect(adding).rejects.toThrow(/param error: the app public key is not a PEM "BEGIN PUBLIC KEY"/);
    await expect(run(['keys', 'add', '--data', dataDir, '--appid', appid])).rejects.toThrow(
      /--key-version is required/,
    );
    await expect(run(['--client', 'nosecret'])).rejects.toThrow(/--client must be key:secret/);
    await expect(run(['--port', 'eighty'])).rejects.toThrow(/--port must be a whole number/);
  });
});

describe('requests of an appid with a registered key', () => {
  let token = '';
  beforeAll(async () => {
    token = await tokenFor(platform.url, appid);
  });
  const send = (authorization: string | undefined, text = body) =>
    post(`${platform.url}${path}`, text, {
      'access-token': token,
      ...(authorization === undefined ? {} : { 'platform-authorization': authorization }),
    });

  test('a request signed with the openssl CLI is accepted and its answer verifies with the published key', async () => {
    const response = await send(
      opensslAuthorization({ privateKeyPath: keys.privateKeyPath, appid, keyVersion: '2', path, body }),
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ err_no: 0, total_num: 0 });
    expect(verifySignedWithOpenssl(platform.publicKeyPath, response.headers, response.text, tmp.dir)).toBe(true);
  });

  test('an unsigned request is 401 40103', async () => {
    const response = await send(undefined);
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ err_no: 40103 });
  });

  test.each([
    ['a replay', () => ({ nonce: 'fixed-nonce-1' }), true, /SIGN_REPLAY/],
    [
      'a timestamp over an hour old',
      () => ({ timestamp: Math.floor(Date.now() / 1000) - 3700 }),
      false,
      /SIGN_STALE_TIMESTAMP/,
    ],
    ['an unknown key_version', () => ({ keyVersion: '9' }), false, /SIGN_UNKNOWN_KEY_VERSION/],
    [
      'a body changed after signing',
      () => ({ sendBody: JSON.stringify({ page_size: 20, page_number: 0 }) }),
      false,
      /SIGN_BAD_SIGNATURE/,
    ],
  ] as const)('%s is 401 40104', async (_, change, sendTwice, code) => {
    const parts = change() as { nonce?: string; timestamp?: number; keyVersion?: string; sendBody?: string };
    const authorization = opensslAuthorization({
      privateKeyPath: keys.privateKeyPath,
      appid,
      keyVersion: parts.keyVersion ?? '2',
      path,
      body,
      nonce: parts.nonce,
      timestamp: parts.timestamp,
    });
    if (sendTwice) expect((await send(authorization)).status).toBe(200);
    const response = await send(authorization, parts.sendBody ?? body);
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ err_no: 40104 });
    expect(String(response.json['err_msg'])).toMatch(code);
  });

  test('the media client signs every call; the signed appid is the one that acts', async () => {
    const media = createMediaClient({
      baseUrl: platform.url,
      credentials: { clientKey: 'tt-provider', clientSecret: 'x' },
      signing: { appid, privateKey: keys.privateKeyPath, keyVersion: '2' },
      platformPublicKey: platform.publicKeyPath,
      env: {},
      retries: 0,
    });
    const list = await media.getVideoList({ page_size: 5, page_number: 0 });
    expect(list.err_no).toBe(0);
    const jobs = await media.uploadVideoByUrls({
      url_sets: [{ source_url: 'http://127.0.0.1:9/none.mp4', file_name: 'none' }],
    });
    const jobId = jobs.data!.url_jobs![0]!.job_id;
    expect(platform.context.store.state.jobs[jobId]?.appid).toBe(appid);
  });
});
