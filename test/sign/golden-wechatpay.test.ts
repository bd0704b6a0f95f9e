/**
 * Golden vectors nobody here wrote: the published test vectors of the WeChat Pay v3 SDKs (same
 * scheme; sources in wechatpay-vectors.ts). cloudfn must reproduce each signature byte for byte
 * from the SDK's private key, and accept it with the public key or certificate the SDK publishes.
 */
import { sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createHeaderProfile,
  loadPrivateKey,
  loadPublicKey,
  signRequest,
  signResponse,
  verifyCallback,
  verifyRequest,
  verifyResponse,
} from '../../src/sign/index.js';
import { vectorKeys, vectors } from './wechatpay-vectors.js';

/** The SDKs' response and callback headers; only the names differ from the platform's. */
const wechatpay = createHeaderProfile({
  timestamp: 'Wechatpay-Timestamp',
  nonce: 'Wechatpay-Nonce',
  signature: 'Wechatpay-Signature',
});

describe('published WeChat Pay v3 vectors', () => {
  it('covers at least the nine vectors the issue names', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(9);
  });

  for (const vector of vectors) {
    const keys = vectorKeys[vector.keys];
    it(`${vector.name} — ${vector.source.split(' ')[0]}`, async () => {
      if (vector.kind === 'request') {
        const signed = signRequest({
          privateKey: keys.privateKey,
          appid: 'wx81be3101902f7cb2',
          keyVersion: '1',
          method: vector.method,
          url: vector.url,
          body: vector.body,
          timestamp: vector.timestamp,
          nonce: vector.nonce,
        });
        expect(signed.signature).toBe(vector.signature);
        const verified = await verifyRequest({
          authorization: signed.authorization,
          method: vector.method,
          url: vector.url,
          body: vector.body,
          publicKeys: { '1': keys.publicKey },
          now: Number(vector.timestamp) * 1000,
          nonceStore: false,
        });
        expect(verified.timestamp).toBe(Number(vector.timestamp));
      } else if (vector.kind === 'raw') {
        // A bare message, not the scheme's lines: this checks cloudfn reads the SDK's keys as the SDK does.
        expect(sign('sha256', Buffer.from(vector.message), loadPrivateKey(keys.privateKey)).toString('base64')).toBe(
          vector.signature,
        );
        expect(verifyRaw(vector.message, vector.signature, keys.publicKey)).toBe(true);
      } else {
        const headers = signResponse({
          privateKey: keys.privateKey,
          body: vector.body,
          timestamp: vector.timestamp,
          nonce: vector.nonce,
          profile: wechatpay,
        });
        expect(headers['Wechatpay-Signature']).toBe(vector.signature);
        const now = Number(vector.timestamp) * 1000;
        if (vector.kind === 'response') {
          expect(
            verifyResponse({
              status: 200,
              headers,
              body: vector.body,
              publicKey: keys.publicKey,
              profile: wechatpay,
              now,
            }).signed,
          ).toBe(true);
        } else {
          const result = await verifyCallback({
            headers,
            rawBody: Buffer.from(vector.body),
            publicKey: keys.publicKey,
            profile: wechatpay,
            now,
            nonceStore: false,
          });
          expect(result.nonce).toBe(vector.nonce);
        }
        // One changed byte of the body must fail.
        expect(() =>
          verifyResponse({
            status: 200,
            headers,
            body: vector.body + ' ',
            publicKey: keys.publicKey,
            profile: wechatpay,
            now,
          }),
        ).toThrow(/SIGN|does not verify/);
      }
    });
  }
});

function verifyRaw(message: string, signature: string, publicKey: string): boolean {
  return verify('sha256', Buffer.from(message), loadPublicKey(publicKey), Buffer.from(signature, 'base64'));
}
