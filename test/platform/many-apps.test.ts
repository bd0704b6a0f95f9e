/**
 * A provider acting for three mini-programs, end to end: the emulator holds a platform key pair
 * per appid, one media client (one private key and key_version, one token cache) calls for each
 * through `forApp` and verifies each answer with that appid's key from a key store, and one
 * callback endpoint verifies each mini-program's notifications with its own key.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { run } from '../../src/cli/platform.js';
import { createMediaClient, MediaError } from '../../src/media/index.js';
import { addAppKey, SAMPLE_PATH, type Platform } from '../../src/platform/index.js';
import {
  callbackMiddleware,
  createPlatformKeyStore,
  keyFingerprint,
  type CallbackRequest,
} from '../../src/sign/index.js';
import { startPlatform, tempDir } from './helpers.js';

const appids = ['wxaaa', 'wxbbb', 'wxccc'];
const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
const appPublicPem = app.publicKey.export({ type: 'spki', format: 'pem' }).toString();

let tmp: ReturnType<typeof tempDir>;
let platform: Platform;
let receiver: Server;
const notified: Array<{ appid: string | undefined; event: string }> = [];
const refused: string[] = [];

beforeAll(async () => {
  tmp = tempDir();
  const dataDir = join(tmp.dir, 'data');
  // The provider's one app key, uploaded for each mini-program it acts for.
  for (const appid of appids) await addAppKey(dataDir, appid, '1', appPublicPem);
  const verify = callbackMiddleware({
    platformKeys: createPlatformKeyStore({ dir: join(dataDir, 'platform_keys', 'public') }),
    nonceStore: false,
  });
  receiver = createServer((req, res) =>
    verify(req, res, () => {
      const { callback, body } = req as CallbackRequest;
      notified.push({ appid: callback!.appid, event: (body as { event: string }).event });
      res.writeHead(204).end();
    }),
  );
  receiver.on('request', (req, res) => res.on('finish', () => res.statusCode === 401 && refused.push(req.url ?? '')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
  ({ platform } = await startPlatform(dataDir, {
    ffmpeg: false,
    appids,
    callbackUrl,
    callbackBackoffMs: 10,
    callbackRetries: 0,
  }));
});
afterAll(async () => {
  await platform.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  tmp.remove();
});

describe('three mini-programs, three platform keys, one client and one callback endpoint', () => {
  test('the emulator has a distinct key pair per appid, in a folder a key store reads', () => {
    expect([...platform.appPublicKeys.keys()]).toEqual(appids);
    const fingerprints = appids.map((appid) =>
      keyFingerprint(readFileSync(join(platform.platformKeysDir, `${appid}.pem`), 'utf8')),
    );
    expect(new Set([...fingerprints, keyFingerprint(platform.publicKeyPem)]).size).toBe(4);
  });

  test('one media client signs for each appid and verifies each answer with its key; callbacks verify likewise', async () => {
    const media = createMediaClient({
      baseUrl: platform.url,
      credentials: { clientKey: 'tt-provider', clientSecret: 's' },
      signing: { privateKey: app.privateKey, keyVersion: '1' },
      platformKeys: createPlatformKeyStore({ dir: platform.platformKeysDir }),
      retries: 0,
      env: {},
    });
    for (const appid of appids) {
      const [outcome] = await media
        .forApp(appid)
        .uploadAndWait([{ source_url: platform.url + SAMPLE_PATH, file_name: appid }], {
          pollIntervalMs: 10,
          timeoutMs: 20_000,
        });
      expect(outcome).toMatchObject({ ok: true });
      // The video belongs to the signed appid.
      const list = await media.getVideoList({ page_size: 20, page_number: 0 }, { appid });
      expect(list.data?.map((v) => v.video_name)).toEqual([appid]);
    }
    await platform.idle();
    expect(refused).toEqual([]);
    expect(
      notified
        .filter((n) => n.event === 'upload.finished')
        .map((n) => n.appid)
        .sort(),
    ).toEqual(appids);
    // Without an appid the client cannot sign or pick a key, and says how to give one.
    await expect(media.getVideoList({ page_size: 1, page_number: 0 })).rejects.toThrow(
      /needs the appid of the mini-program it acts for: media.forApp/,
    );
  });

  test("an answer verified with another mini-program's key is refused as forged", async () => {
    const swapped = createMediaClient({
      baseUrl: platform.url,
      credentials: { clientKey: 'tt-provider', clientSecret: 's' },
      signing: { privateKey: app.privateKey, keyVersion: '1' },
      platformKeys: (appid) => platform.appPublicKeys.get(appid === 'wxaaa' ? 'wxbbb' : appid),
      retries: 0,
      env: {},
    });
    expect((await swapped.forApp('wxbbb').getVideoList({ page_size: 1, page_number: 0 })).err_no).toBe(0);
    const error = await swapped
      .forApp('wxaaa')
      .getVideoList({ page_size: 1, page_number: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect(error).toMatchObject({ code: 'MEDIA_FORGED_RESPONSE' });
  });

  test('start_work_flow is rate-limited per mini-program, the statistics per provider', async () => {
    const clockNow = { t: Date.now() };
    const sleeps: number[] = [];
    const media = createMediaClient({
      baseUrl: platform.url,
      accessToken: 'unused',
      rateLimit: 1,
      fetch: async () => new Response('{"err_no":0,"err_msg":"ok","data":{}}', { status: 500 }),
      clock: { now: () => clockNow.t, sleep: async (ms) => void sleeps.push(ms) },
      retries: 0,
      env: {},
    });
    const start = (appid: string) =>
      media
        .forApp(appid)
        .startWorkFlow({ vid: 'v1', trans_code_type: '3' })
        .catch(() => undefined);
    await start('wxaaa');
    await start('wxbbb');
    expect(sleeps).toEqual([]);
    await start('wxaaa');
    expect(sleeps).toEqual([1000]);
    const seconds = Math.floor(clockNow.t / 1000);
    const top = (appid: string) =>
      media
        .forApp(appid)
        .describeVodPlayedTopData({ env_id: 'e', start_time: seconds - 100, end_time: seconds - 10, order_type: 5 })
        .catch(() => undefined);
    sleeps.length = 0;
    await top('wxccc');
    await top('wxaaa');
    expect(sleeps).toEqual([1000]);
  });
});

describe('cloudfn platform keys', () => {
  test('lists the default pair and one per appid with fingerprints', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await run(['keys', '--data', platform.dataDir])).toBe(0);
      const out = write.mock.calls.map((c) => String(c[0])).join('');
      expect(out).toMatch(/^\* \(default\) {2}sha256:[0-9a-f]{64} {2}.*platform_public_key\.pem$/m);
      for (const appid of appids)
        expect(out).toContain(
          `${appid}  ${keyFingerprint(platform.appPublicKeys.get(appid)!)}  ${join(platform.platformKeysDir, `${appid}.pem`)}`,
        );
    } finally {
      write.mockRestore();
    }
  });
});
