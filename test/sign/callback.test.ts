/** Callbacks: verified over the raw bytes, in a function (service), directly, and through the middleware on a real socket. */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callbackMiddleware,
  MemoryNonceStore,
  SignatureError,
  signCallback,
  verifyCallback,
  verifyServiceCallback,
  type CallbackRequest,
} from '../../src/sign/index.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const body = '{"event":"transcode_done","vid":"v1","title":"标题","escaped":"\\u00e9\\/"}';

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

describe('verifyCallback', () => {
  it('accepts the raw body and refuses it re-serialized', async () => {
    const headers = lowerCase(signCallback({ privateKey, body }));
    expect(await verifyCallback({ headers, rawBody: Buffer.from(body), publicKey, nonceStore: false })).toMatchObject({
      nonce: headers['platform-nonce-str'],
    });
    await expect(
      verifyCallback({ headers, rawBody: JSON.stringify(JSON.parse(body)), publicKey, nonceStore: false }),
    ).rejects.toMatchObject({ code: 'SIGN_BAD_SIGNATURE' });
    await expect(verifyCallback({ headers, rawBody: JSON.parse(body) as string, publicKey })).rejects.toThrow(
      /rawBody must be the raw text or bytes/,
    );
  });
  it('refuses the base64url spelling of a valid signature, as docs/errors.md says', async () => {
    const headers = lowerCase(signCallback({ privateKey, body }));
    // Find a signature that base64url spells differently, so the test always exercises the row.
    let signed = headers;
    while (!/[+/]/.test(signed['platform-signature']!)) signed = lowerCase(signCallback({ privateKey, body }));
    const url = {
      ...signed,
      'platform-signature': signed['platform-signature']!.replaceAll('+', '-').replaceAll('/', '_'),
    };
    expect(url['platform-signature']).toHaveLength(344);
    await expect(verifyCallback({ headers: url, rawBody: body, publicKey, nonceStore: false })).rejects.toMatchObject({
      code: 'SIGN_BAD_SIGNATURE',
      message: expect.stringMatching(/base64url/),
    });
    expect(await verifyCallback({ headers: signed, rawBody: body, publicKey, nonceStore: false })).toMatchObject({
      nonce: signed['platform-nonce-str'],
    });
  });
  it('uses the same three headers as responses', () => {
    expect(Object.keys(signCallback({ privateKey, body }))).toEqual([
      'Platform-Timestamp',
      'Platform-Nonce-Str',
      'Platform-Signature',
    ]);
  });
  it('refuses a missing header, a stale one and a replay', async () => {
    await expect(verifyCallback({ headers: {}, rawBody: body, publicKey })).rejects.toThrow(
      /the Platform-Timestamp header is missing/,
    );
    const old = signCallback({ privateKey, body, timestamp: 1700000000 });
    await expect(
      verifyCallback({ headers: old, rawBody: body, publicKey, now: (1700000000 + 3601) * 1000 }),
    ).rejects.toMatchObject({ code: 'SIGN_STALE_TIMESTAMP' });
    expect(
      await verifyCallback({
        headers: old,
        rawBody: body,
        publicKey,
        now: (1700000000 + 3600) * 1000,
        nonceStore: false,
      }),
    ).toEqual({ timestamp: 1700000000, nonce: old['Platform-Nonce-Str'], appid: undefined, keyIndex: 0 });
    const store = new MemoryNonceStore();
    const fresh = signCallback({ privateKey, body });
    await verifyCallback({ headers: fresh, rawBody: body, publicKey, nonceStore: store });
    await expect(verifyCallback({ headers: fresh, rawBody: body, publicKey, nonceStore: store })).rejects.toMatchObject(
      { code: 'SIGN_REPLAY', status: 401 },
    );
  });
  it('verifies from a cloudfn service', async () => {
    const headers = lowerCase(signCallback({ privateKey, body }));
    const service = { headers, rawBody: Buffer.from(body) };
    expect((await verifyServiceCallback(service, { publicKey })).nonce).toBe(headers['platform-nonce-str']);
    await expect(
      verifyServiceCallback({ headers, rawBody: Buffer.from(body + ' ') }, { publicKey }),
    ).rejects.toBeInstanceOf(SignatureError);
  });
});

describe('callbackMiddleware over a real socket', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ raw: string; body: unknown }> = [];
  beforeAll(async () => {
    const verify = callbackMiddleware({ publicKey, limit: 4096 });
    server = createServer((req, res) => {
      if (req.url === '/parsed') {
        // a parser that ran first: it consumed the stream and set req.body
        (req as CallbackRequest).body = { parsed: true };
        req.resume();
      }
      const go = () =>
        verify(req, res, (error?: unknown) => {
          if (error !== undefined) {
            res.writeHead(500).end(String(error));
            return;
          }
          const r = req as IncomingMessage & CallbackRequest;
          seen.push({ raw: r.rawBody!.toString('utf8'), body: r.body });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        });
      if (req.url === '/parsed') req.once('end', go);
      else go();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('passes a valid callback with its raw bytes and parsed JSON', async () => {
    const res = await fetch(base + '/notify', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...signCallback({ privateKey, body }) },
    });
    expect(res.status).toBe(200);
    expect(seen.at(-1)).toEqual({ raw: body, body: JSON.parse(body) });
  });
  it('answers 401 with the code for a bad signature, and replays', async () => {
    const headers = signCallback({ privateKey, body });
    const bad = await fetch(base + '/notify', { method: 'POST', body: body + '\n', headers });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('SIGN_BAD_SIGNATURE');
    expect((await fetch(base + '/notify', { method: 'POST', body, headers })).status).toBe(200);
    const replay = await fetch(base + '/notify', { method: 'POST', body, headers });
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('SIGN_REPLAY');
  });
  it('answers 413 past the limit', async () => {
    const big = JSON.stringify({ x: 'a'.repeat(5000) });
    const res = await fetch(base + '/notify', {
      method: 'POST',
      body: big,
      headers: signCallback({ privateKey, body: big }),
    });
    expect(res.status).toBe(413);
  });
  it('reports a parser mounted before it instead of hanging', async () => {
    const res = await fetch(base + '/parsed', { method: 'POST', body, headers: signCallback({ privateKey, body }) });
    expect(res.status).toBe(500);
    expect(await res.text()).toMatch(/mount it before express.json\(\)/);
  });
});
