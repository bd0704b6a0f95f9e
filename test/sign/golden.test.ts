/**
 * Golden vectors: the five lines are written out literally here, signed by the openssl CLI,
 * and cloudfn must produce the same signature byte for byte (PKCS#1 v1.5 is deterministic)
 * from PKCS1 and PKCS8 keys alike, and accept openssl's signature.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadPrivateKey,
  signRequest,
  signResponse,
  stringToSign,
  verifyRequest,
  verifyResponse,
} from '../../src/sign/index.js';
import { opensslKeys, type OpensslKeys } from './openssl.js';

let keys: OpensslKeys;
beforeAll(() => {
  keys = opensslKeys();
});
afterAll(() => keys.cleanup());

const T = 1700000000;
const N = '593BEC0C930BF1AFEB40B4A08C8FB242';

const cases: Array<{ name: string; method: string; url: string; body?: string | Buffer; expected: string }> = [
  { name: 'GET with empty body', method: 'GET', url: '/v1/videos', expected: `GET\n/v1/videos\n${T}\n${N}\n\n` },
  {
    name: 'POST with Chinese text and emoji',
    method: 'POST',
    url: '/v1/videos',
    body: '{"title":"你好，世界 😀","n":1}',
    expected: `POST\n/v1/videos\n${T}\n${N}\n{"title":"你好，世界 😀","n":1}\n`,
  },
  {
    name: 'URL with a query, signed as on the wire',
    method: 'GET',
    url: '/v1/videos?page=2&size=20&q=%E4%BD%A0%7e',
    expected: `GET\n/v1/videos?page=2&size=20&q=%E4%BD%A0%7e\n${T}\n${N}\n\n`,
  },
  {
    name: 'body ending in LF gets one more LF',
    method: 'PUT',
    url: '/v1/videos/1',
    body: '{"a":1}\n',
    expected: `PUT\n/v1/videos/1\n${T}\n${N}\n{"a":1}\n\n`,
  },
  {
    name: 'absolute URL loses scheme and host',
    method: 'post',
    url: 'https://api.example.com:8443/v1/videos?x=1#frag',
    body: '{}',
    expected: `POST\n/v1/videos?x=1\n${T}\n${N}\n{}\n`,
  },
  {
    name: 'absolute URL without path gives /',
    method: 'GET',
    url: 'https://api.example.com',
    expected: `GET\n/\n${T}\n${N}\n\n`,
  },
  {
    name: 'body given as bytes',
    method: 'POST',
    url: '/v1/upload',
    body: Buffer.from('{"t":"é"}\r\n', 'utf8'),
    expected: `POST\n/v1/upload\n${T}\n${N}\n{"t":"é"}\r\n\n`,
  },
];

describe('request signatures equal openssl dgst -sha256 -sign', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const parts = { method: c.method, url: c.url, timestamp: T, nonce: N, body: c.body };
      expect(stringToSign(parts)).toBe(c.expected);
      const golden = keys.sign(Buffer.from(c.expected, 'utf8'));
      for (const privateKey of [keys.pkcs1, keys.pkcs8, keys.path.pkcs1, loadPrivateKey(keys.der)]) {
        const signed = signRequest({ privateKey, appid: 'wx1', keyVersion: '3', ...parts });
        expect(signed.signature).toBe(golden);
        expect(signed.authorization).toBe(
          `SHA256-RSA2048 appid="wx1",nonce_str="${N}",timestamp="${T}",key_version="3",signature="${golden}"`,
        );
      }
      const header = `SHA256-RSA2048 appid="wx1",nonce_str="${N}",timestamp="${T}",key_version="3",signature="${golden}"`;
      const verified = await verifyRequest({
        authorization: header,
        method: c.method,
        url: c.url,
        body: c.body,
        publicKeys: { '3': keys.spki },
        now: T * 1000,
        nonceStore: false,
      });
      expect(verified).toEqual({ appid: 'wx1', keyVersion: '3', timestamp: T, nonce: N });
    });
  }

  it('PKCS1 and PKCS8 openssl signatures are identical', () => {
    const data = `GET\n/\n${T}\n${N}\n\n`;
    expect(keys.sign(data, keys.path.pkcs8)).toBe(keys.sign(data, keys.path.pkcs1));
  });
});

describe('response signatures equal openssl', () => {
  it('three lines, body as received', () => {
    const body = '{"errcode":0,"name":"视频 🎬"}';
    const golden = keys.sign(`${T}\n${N}\n${body}\n`);
    const headers = signResponse({ privateKey: keys.pkcs8, body, timestamp: T, nonce: N });
    expect(headers).toEqual({ 'Platform-Timestamp': String(T), 'Platform-Nonce-Str': N, 'Platform-Signature': golden });
    expect(verifyResponse({ status: 200, headers, body, publicKey: keys.rsaPublic, now: T * 1000 })).toEqual({
      signed: true,
      timestamp: T,
      nonce: N,
      keyIndex: 0,
    });
  });

  it('an empty body (204) is one LF', () => {
    const golden = keys.sign(`${T}\n${N}\n\n`);
    expect(signResponse({ privateKey: keys.pkcs1, timestamp: T, nonce: N })['Platform-Signature']).toBe(golden);
    expect(
      verifyResponse({
        status: 204,
        headers: { 'platform-timestamp': String(T), 'platform-nonce-str': N, 'platform-signature': golden },
        body: '',
        publicKey: keys.publicDer,
        now: T * 1000,
      }).signed,
    ).toBe(true);
  });
});
