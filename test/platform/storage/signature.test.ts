/**
 * The TOS4-HMAC-SHA256 verifier against the SDK's own signer: presigned URLs minted by
 * `getPreSignedUrl` of @volcengine/tos-sdk hold, at any time before their expiry and not after
 * (the clock given, so no test waits), and fail once a part of them changes; header signatures
 * the SDK computes are checked in tos-sdk.test.ts over a socket.
 */
import { TosClient } from '@volcengine/tos-sdk';
import { describe, expect, it } from 'vitest';
import { canonicalPath, verifySignature } from '../../../src/platform/storage/signature.js';

const KEYS = { accessKey: 'AKLTunit', secretKey: 'unit-secret' };
const client = new TosClient({
  accessKeyId: KEYS.accessKey,
  accessKeySecret: KEYS.secretKey,
  region: 'cn-beijing',
  endpoint: 'tos-cn-beijing.volces.com',
});

/** A presigned URL as the request the dev route sees: host, raw path, raw query. */
function asRequest(url: string, method = 'GET') {
  const parsed = new URL(url);
  return {
    method,
    path: parsed.pathname,
    query: parsed.search.slice(1),
    headers: { host: parsed.host },
  };
}

const signedAt = (url: string) => {
  const date = new URL(url).searchParams.get('X-Tos-Date')!;
  return Date.UTC(
    +date.slice(0, 4),
    +date.slice(4, 6) - 1,
    +date.slice(6, 8),
    +date.slice(9, 11),
    +date.slice(11, 13),
    +date.slice(13, 15),
  );
};

describe('verifySignature against the SDK signer', () => {
  it('accepts a presigned GET and PUT until X-Tos-Expires, then refuses it as expired', () => {
    for (const method of ['GET', 'PUT'] as const) {
      const url = client.getPreSignedUrl({ bucket: 'media', key: 'a dir/(1)!*.png', method, expires: 60 });
      const at = signedAt(url);
      expect(verifySignature(asRequest(url, method), KEYS, at)).toBeUndefined();
      expect(verifySignature(asRequest(url, method), KEYS, at + 60_000)).toBeUndefined();
      const late = verifySignature(asRequest(url, method), KEYS, at + 61_000);
      expect(late?.code).toBe('AccessDenied');
      expect(late?.message).toMatch(/^Request has expired: the URL was signed at .* for 60 s, so it expired at /);
    }
  });

  it('refuses a URL whose method, key, host, query or expiry changed, or that another key signed', () => {
    const url = client.getPreSignedUrl({ bucket: 'media', key: 'k.txt', expires: 600 });
    const at = signedAt(url);
    const code = (request: ReturnType<typeof asRequest>, keys = KEYS) => verifySignature(request, keys, at)?.code;
    expect(code(asRequest(url, 'DELETE'))).toBe('SignatureDoesNotMatch');
    expect(code(asRequest(url.replace('/k.txt', '/j.txt')))).toBe('SignatureDoesNotMatch');
    expect(code(asRequest(url.replace('media.', 'other.')))).toBe('SignatureDoesNotMatch');
    expect(code(asRequest(`${url}&response-content-type=text%2Fhtml`))).toBe('SignatureDoesNotMatch');
    expect(code(asRequest(url.replace('X-Tos-Expires=600', 'X-Tos-Expires=6000')))).toBe('SignatureDoesNotMatch');
    expect(code(asRequest(url), { ...KEYS, secretKey: 'other' })).toBe('SignatureDoesNotMatch');
    expect(code(asRequest(url), { ...KEYS, accessKey: 'AKLTother' })).toBe('InvalidAccessKeyId');
    expect(code({ ...asRequest(url.split('?')[0]!), query: '' })).toBe('AccessDenied');
    expect(code({ ...asRequest(url), query: `${asRequest(url).query}&bad=%E0%A4%A` })).toBe('AccessDenied');
    expect(code({ ...asRequest(url), path: '/%E0%A4%A' })).toBe('AccessDenied');
  });

  it('names, for a mismatch, the string to sign and the canonical request it computed', () => {
    const url = client.getPreSignedUrl({ bucket: 'media', key: 'k.txt', expires: 600 });
    const refusal = verifySignature(asRequest(url, 'PUT'), KEYS, signedAt(url));
    expect(refusal?.canonicalRequest?.split('\n').slice(0, 2)).toEqual(['PUT', '/k.txt']);
    expect(refusal?.stringToSign?.split('\n')[0]).toBe('TOS4-HMAC-SHA256');
    expect(refusal?.log).toContain('of this canonical request:\nPUT\n/k.txt\n');
  });

  it("encodes a key as the SDK signs it: slashes kept, !'()* escaped", () => {
    expect(canonicalPath('/a%2Fb/c%20d(1)!.txt')).toBe('/a/b/c%20d%281%29%21.txt');
  });
});
