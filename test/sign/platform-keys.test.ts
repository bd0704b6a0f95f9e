/**
 * A platform key per mini-program: a key store over a folder of `<appid>.pem` files or a load
 * function, verifiers picking the key by appid (one callback endpoint for many mini-programs),
 * and a key rotation where the old and new keys both verify during the overlap and only the new
 * one after.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callbackMiddleware,
  createPlatformKeyStore,
  signCallback,
  signResponse,
  verifyCallback,
  verifyResponse,
  verifyServiceCallback,
  type CallbackRequest,
} from '../../src/sign/index.js';

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
const apps = { wxaaa: pair(), wxbbb: pair(), wxccc: pair() };
const event = (appid: string) =>
  JSON.stringify({ event: 'upload.finished', app_id: appid, create_time: 1700000000, data: { vid: 'v1' } });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cloudfn-platform-keys-'));
  for (const [appid, keys] of Object.entries(apps)) writeFileSync(join(dir, `${appid}.pem`), pem(keys.publicKey));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createPlatformKeyStore', () => {
  it('reads <appid>.pem from a folder and verifies each mini-program with its own key', async () => {
    const platformKeys = createPlatformKeyStore({ dir });
    for (const [appid, keys] of Object.entries(apps)) {
      const body = event(appid);
      const result = await verifyCallback({
        headers: signCallback({ privateKey: keys.privateKey, body }),
        rawBody: body,
        platformKeys,
        nonceStore: false,
      });
      expect(result).toMatchObject({ appid, keyIndex: 0 });
    }
    // Signed with wxaaa's key but claiming wxbbb: wxbbb's key does not verify it.
    const forged = event('wxbbb');
    await expect(
      verifyCallback({
        headers: signCallback({ privateKey: apps.wxaaa.privateKey, body: forged }),
        rawBody: forged,
        platformKeys,
        nonceStore: false,
      }),
    ).rejects.toMatchObject({ code: 'SIGN_BAD_SIGNATURE' });
  });
  it('names an unknown appid, a missing one, a mismatch and an appid that cannot name a file', async () => {
    const platformKeys = createPlatformKeyStore({ dir });
    const sign = (body: string) => signCallback({ privateKey: apps.wxaaa.privateKey, body });
    const unknown = event('wxzzz');
    await expect(verifyCallback({ headers: sign(unknown), rawBody: unknown, platformKeys })).rejects.toMatchObject({
      code: 'SIGN_UNKNOWN_APPID',
      message: expect.stringMatching(/no platform public key is known for appid "wxzzz"/),
    });
    const none = '{"event":"x"}';
    await expect(verifyCallback({ headers: sign(none), rawBody: none, platformKeys })).rejects.toMatchObject({
      code: 'SIGN_NO_APPID',
    });
    const body = event('wxaaa');
    await expect(
      verifyCallback({ headers: sign(body), rawBody: body, platformKeys, appid: 'wxbbb' }),
    ).rejects.toMatchObject({ code: 'SIGN_APPID_MISMATCH' });
    expect(
      (await verifyCallback({ headers: sign(none), rawBody: none, platformKeys, appid: 'wxaaa', nonceStore: false }))
        .appid,
    ).toBe('wxaaa');
    await expect(createPlatformKeyStore({ dir }).keys('../wxaaa')).rejects.toMatchObject({
      code: 'SIGN_UNKNOWN_APPID',
      message: expect.stringMatching(/cannot name a file/),
    });
    expect(() => createPlatformKeyStore({})).toThrow(/needs one of dir .* or load/);
  });
  it('caches what load gives, shares one load between concurrent lookups, and forgets on clear', async () => {
    let loads = 0;
    const store = createPlatformKeyStore({
      load: async (appid) => {
        loads++;
        return appid in apps ? pem(apps[appid as keyof typeof apps].publicKey) : undefined;
      },
    });
    await Promise.all([store.keys('wxaaa'), store.keys('wxaaa'), store.keys('wxaaa')]);
    expect(loads).toBe(1);
    await store.keys('wxaaa');
    expect(loads).toBe(1);
    store.clear('wxaaa');
    await store.keys('wxaaa');
    expect(loads).toBe(2);
    // A failed lookup is not cached: a key added a moment later is found.
    await expect(store.keys('wxnew')).rejects.toMatchObject({ code: 'SIGN_UNKNOWN_APPID' });
    await expect(store.keys('wxnew')).rejects.toMatchObject({ code: 'SIGN_UNKNOWN_APPID' });
    expect(loads).toBe(4);
  });
  it('a resolver function works in place of a store, and verifyResponse takes several keys', async () => {
    const body = event('wxccc');
    const headers = signCallback({ privateKey: apps.wxccc.privateKey, body });
    const result = await verifyCallback({
      headers,
      rawBody: body,
      platformKeys: (appid) => pem(apps[appid as keyof typeof apps].publicKey),
      nonceStore: false,
    });
    expect(result.appid).toBe('wxccc');
    const response = signResponse({ privateKey: apps.wxccc.privateKey, body });
    expect(
      verifyResponse({ status: 200, headers: response, body, publicKey: [apps.wxaaa.publicKey, apps.wxccc.publicKey] }),
    ).toMatchObject({ signed: true, keyIndex: 1 });
  });
});

describe('rotating a platform key without downtime', () => {
  it('old and new both verify during the overlap (keyIndex says which), only the new one after', async () => {
    const rotationDir = mkdtempSync(join(tmpdir(), 'cloudfn-rotation-'));
    try {
      const old = apps.wxaaa;
      const next = pair();
      const file = join(rotationDir, 'wxaaa.pem');
      writeFileSync(file, pem(old.publicKey));
      const store = createPlatformKeyStore({ dir: rotationDir });
      const body = event('wxaaa');
      const byOld = () => signCallback({ privateKey: old.privateKey, body });
      const byNew = () => signCallback({ privateKey: next.privateKey, body });
      const check = (headers: Record<string, string>) =>
        verifyCallback({ headers, rawBody: body, platformKeys: store, nonceStore: false });

      expect((await check(byOld())).keyIndex).toBe(0);
      await expect(check(byNew())).rejects.toMatchObject({ code: 'SIGN_BAD_SIGNATURE' });

      // Step 1: add the new key beside the old one (one file, two PEM blocks).
      writeFileSync(file, pem(old.publicKey) + pem(next.publicKey));
      store.clear('wxaaa');
      expect((await check(byOld())).keyIndex).toBe(0);
      expect((await check(byNew())).keyIndex).toBe(1);

      // Step 2: once the platform signs only with the new key, remove the old one.
      writeFileSync(file, pem(next.publicKey));
      store.clear('wxaaa');
      await expect(check(byOld())).rejects.toMatchObject({ code: 'SIGN_BAD_SIGNATURE' });
      expect((await check(byNew())).keyIndex).toBe(0);
    } finally {
      rmSync(rotationDir, { recursive: true, force: true });
    }
  });
});

describe('one callback endpoint for three mini-programs, over a real socket', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ appid: string | undefined; keyIndex: number }> = [];
  beforeAll(async () => {
    const verify = callbackMiddleware({ platformKeys: createPlatformKeyStore({ dir }) });
    server = createServer((req, res) =>
      verify(req, res, () => {
        const callback = (req as CallbackRequest).callback!;
        seen.push({ appid: callback.appid, keyIndex: callback.keyIndex });
        res.writeHead(200).end('ok');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts each mini-program signed with its own key and refuses a swap', async () => {
    for (const [appid, keys] of Object.entries(apps)) {
      const body = event(appid);
      const res = await fetch(base + '/notify', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...signCallback({ privateKey: keys.privateKey, body }) },
      });
      expect(res.status).toBe(200);
    }
    expect(seen.map((s) => s.appid)).toEqual(['wxaaa', 'wxbbb', 'wxccc']);
    const body = event('wxccc');
    const swapped = await fetch(base + '/notify', {
      method: 'POST',
      body,
      headers: signCallback({ privateKey: apps.wxbbb.privateKey, body }),
    });
    expect(swapped.status).toBe(401);
    expect(await swapped.json()).toMatchObject({ error: { code: 'SIGN_BAD_SIGNATURE' } });
  });
  it('verifyServiceCallback inside a cloud function picks the key the same way', async () => {
    const body = event('wxbbb');
    const service = { headers: signCallback({ privateKey: apps.wxbbb.privateKey, body }), rawBody: Buffer.from(body) };
    expect(
      (await verifyServiceCallback(service, { platformKeys: createPlatformKeyStore({ dir }), nonceStore: false }))
        .appid,
    ).toBe('wxbbb');
  });
});
