/** Responses: a signed 2xx verifies, a forged or unsigned 2xx is refused, an unsigned error answer is only unsigned. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createHeaderProfile,
  SignatureError,
  signResponse,
  verifyResponse,
  type VerifyResponseOptions,
} from '../../src/sign/index.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const body = '{"errcode":0,"data":{"vid":"v1","title":"标题 🎬"}}';
const headers = signResponse({ privateKey, body, timestamp: 1700000000, nonce: 'abc' });
/** The clock the fixed timestamp above is fresh against: responses get a 300 s age check by default. */
const now = 1700000000 * 1000;

function codeOf(opts: Partial<VerifyResponseOptions>): string {
  try {
    verifyResponse({ status: 200, headers, body, publicKey, now, ...opts });
    return 'valid';
  } catch (error) {
    if (error instanceof SignatureError) return error.code;
    throw error;
  }
}

describe('verifyResponse', () => {
  it('accepts a signed 2xx from a plain object, lower-case keys, or a fetch Headers', () => {
    expect(verifyResponse({ status: 200, headers, body, publicKey, now })).toEqual({
      signed: true,
      timestamp: 1700000000,
      nonce: 'abc',
      keyIndex: 0,
    });
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyResponse({ status: 201, headers: lower, body: Buffer.from(body), publicKey, now }).signed).toBe(true);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(
      verifyResponse({ status: 200, headers: upper, body: new TextEncoder().encode(body), publicKey, now }).signed,
    ).toBe(true);
    expect(verifyResponse({ status: 200, headers: new Headers(headers), body, publicKey, now }).signed).toBe(true);
  });
  it('refuses an unsigned 2xx as forged', () => {
    expect(codeOf({ headers: {} })).toBe('SIGN_UNSIGNED_RESPONSE');
    expect(() => verifyResponse({ status: 204, headers: new Headers(), body: '', publicKey })).toThrow(
      /the 204 response carries no Platform-Signature header; a 2xx answer without a signature is forged/,
    );
  });
  it('reports an unsigned 500 (or 400) as unsigned, not forged', () => {
    expect(
      verifyResponse({
        status: 500,
        headers: { 'content-type': 'application/json' },
        body: '{"errcode":-1}',
        publicKey,
      }),
    ).toEqual({ signed: false });
    expect(verifyResponse({ status: 400, headers: new Headers(), body: '', publicKey })).toEqual({ signed: false });
  });
  it('still checks a signature present on a non-2xx', () => {
    expect(codeOf({ status: 500, body: 'changed' })).toBe('SIGN_BAD_SIGNATURE');
  });
  it('refuses every tampered line', () => {
    expect(codeOf({ body: body.replace('标题', '标 题') })).toBe('SIGN_BAD_SIGNATURE');
    expect(codeOf({ body: JSON.stringify(JSON.parse(body), null, 1) })).toBe('SIGN_BAD_SIGNATURE');
    expect(codeOf({ headers: { ...headers, 'Platform-Timestamp': '1700000001' } })).toBe('SIGN_BAD_SIGNATURE');
    expect(codeOf({ headers: { ...headers, 'Platform-Nonce-Str': 'abd' } })).toBe('SIGN_BAD_SIGNATURE');
    const sig = headers['Platform-Signature']!;
    expect(codeOf({ headers: { ...headers, 'Platform-Signature': (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1) } })).toBe(
      'SIGN_BAD_SIGNATURE',
    );
    expect(codeOf({ publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey })).toBe(
      'SIGN_BAD_SIGNATURE',
    );
  });
  it('names a missing header when only some are present', () => {
    const { 'Platform-Nonce-Str': _dropped, ...partial } = headers;
    expect(() => verifyResponse({ status: 200, headers: partial, body, publicKey })).toThrow(
      /the Platform-Nonce-Str header is missing or empty/,
    );
  });
  it('refuses a parsed body with a TypeError that explains why', () => {
    expect(() => verifyResponse({ status: 200, headers, body: JSON.parse(body) as string, publicKey })).toThrow(
      TypeError,
    );
    expect(() => verifyResponse({ status: 200, headers, body: JSON.parse(body) as string, publicKey })).toThrow(
      /body must be the raw text or bytes as sent or received, got an object; re-serializing JSON/,
    );
  });
  it('refuses a response more than 300 s old by default, configurable, and off with false', () => {
    expect(codeOf({ now: (1700000000 + 301) * 1000 })).toBe('SIGN_STALE_TIMESTAMP');
    expect(codeOf({ now: (1700000000 + 300) * 1000 })).toBe('valid');
    expect(codeOf({ now: (1700000000 - 301) * 1000 })).toBe('SIGN_FUTURE_TIMESTAMP');
    expect(codeOf({ maxAgeSeconds: 60, now: (1700000000 + 61) * 1000 })).toBe('SIGN_STALE_TIMESTAMP');
    expect(codeOf({ maxAgeSeconds: 60, now: (1700000000 + 60) * 1000 })).toBe('valid');
    expect(codeOf({ maxAgeSeconds: false, now: (1700000000 + 86400 * 365) * 1000 })).toBe('valid');
  });
  it('uses a custom header profile', () => {
    const profile = createHeaderProfile({ timestamp: 'X-Ts', nonce: 'X-Nonce', signature: 'X-Sig' });
    const custom = signResponse({ privateKey, body, profile });
    expect(Object.keys(custom)).toEqual(['X-Ts', 'X-Nonce', 'X-Sig']);
    expect(verifyResponse({ status: 200, headers: custom, body, publicKey, profile }).signed).toBe(true);
    expect(() => verifyResponse({ status: 200, headers: custom, body, publicKey })).toThrow(
      /carries no Platform-Signature/,
    );
    expect(() => createHeaderProfile({ nonce: 'bad name' })).toThrow(
      /header profile entry nonce must be a header name/,
    );
  });
  it('signResponse refuses an object body', () => {
    expect(() => signResponse({ privateKey, body: { a: 1 } as unknown as string })).toThrow(TypeError);
  });
});
