/**
 * URLs that need percent-encoding: what `signRequest` signs must be what fetch puts on the
 * wire, checked through a real fetch to a real socket on port 0 whose handler verifies
 * `req.url` as received. A signer that signs the URL as typed is named by the diagnosis, and a
 * body read as latin1 on the way is named as mojibake.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  diagnoseRequest,
  diagnoseResponse,
  type SignatureError,
  signedPath,
  signRequest,
  verifyRequest,
} from '../../src/sign/index.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

let server: Server;
let origin: string;
const received: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(req.url!);
      verifyRequest({
        authorization: req.headers['platform-authorization'] as string,
        method: req.method!,
        url: req.url!,
        body: Buffer.concat(chunks),
        publicKeys: { '1': publicKey },
        nonceStore: false,
      }).then(
        () => res.writeHead(200).end('ok'),
        (error: SignatureError) => res.writeHead(error.status ?? 500).end(error.code),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** URL as typed → what node 20's fetch sent (measured here, and asserted below). */
const cases: Array<[typed: string, wire: string]> = [
  ['/v1/x?q=a b', '/v1/x?q=a%20b'],
  ['/v1/京?city=京', '/v1/%E4%BA%AC?city=%E4%BA%AC'],
  ["/v1/x?q='quoted'", '/v1/x?q=%27quoted%27'],
  ['/v1/x?q=%7e&r=~', '/v1/x?q=%7e&r=~'],
  ['/v1/a/../b/./c', '/v1/b/c'],
  ['/v1/x?q=a+b&e=%zz', '/v1/x?q=a+b&e=%zz'],
];

describe('signRequest signs the URL as fetch sends it', () => {
  for (const [typed, wire] of cases) {
    it(`${typed} → ${wire}, accepted over a real socket`, async () => {
      const body = '{"title":"你好"}';
      const signed = signRequest({ privateKey, appid: 'wx1', keyVersion: '1', method: 'POST', url: typed, body });
      expect(signed.path).toBe(wire);
      expect(signedPath(origin + typed)).toBe(wire);
      const res = await fetch(origin + typed, {
        method: 'POST',
        body: String(signed.body),
        headers: { 'Platform-Authorization': signed.authorization },
      });
      expect(received.at(-1)).toBe(wire);
      expect(await res.text()).toBe('ok');
      expect(res.status).toBe(200);
    });
  }
});

describe('the diagnosis names an encoding slip', () => {
  const T = '1700000000';
  const N = 'nonce-wire';
  it('a signer that signed the URL as typed', () => {
    const signature = sign('sha256', Buffer.from(`GET\n/v1/x?q=a b&city=京\n${T}\n${N}\n\n`), privateKey).toString(
      'base64',
    );
    const cause = diagnoseRequest({
      publicKey,
      method: 'GET',
      url: '/v1/x?q=a%20b&city=%E4%BA%AC',
      timestamp: T,
      nonce: N,
      signature,
    });
    expect(cause).toMatch(/signed the URL as typed \("\/v1\/x\?q=a b&city=京"\).*percent-encoded/);
  });
  it('a URL handed to the verifier as typed, not as received', () => {
    const signed = signRequest({
      privateKey,
      appid: 'wx1',
      keyVersion: '1',
      method: 'GET',
      url: '/v1/x?q=a b',
      timestamp: T,
      nonce: N,
    });
    const cause = diagnoseRequest({
      publicKey,
      method: 'GET',
      url: '/v1/x?q=a b',
      timestamp: T,
      nonce: N,
      signature: signed.signature,
    });
    expect(cause).toMatch(/not the one received: fetch sends "\/v1\/x\?q=a b" as "\/v1\/x\?q=a%20b"/);
  });
  it('a body read as latin1 on the way (mojibake), either side', () => {
    const body = '{"title":"你好"}';
    const mojibake = Buffer.from(body, 'utf8').toString('latin1');
    const signedRight = sign('sha256', Buffer.from(`${T}\n${N}\n${body}\n`), privateKey).toString('base64');
    expect(diagnoseResponse({ publicKey, timestamp: T, nonce: N, body: mojibake, signature: signedRight })).toMatch(
      /mojibake: UTF-8 that was read as latin1/,
    );
    const signedMojibake = sign('sha256', Buffer.from(`POST\n/v1/x\n${T}\n${N}\n${mojibake}\n`), privateKey).toString(
      'base64',
    );
    expect(
      diagnoseRequest({
        publicKey,
        method: 'POST',
        url: '/v1/x',
        timestamp: T,
        nonce: N,
        body,
        signature: signedMojibake,
      }),
    ).toMatch(/read as latin1 on the signer's side/);
  });
});
