/**
 * The signature field as received: only standard base64 of 256 bytes passes, whatever the fast
 * path of checkSignatureText skips (it decodes without scanning the alphabet first).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignatureText, signatureView } from '../../src/sign/signature.js';

describe('checkSignatureText', () => {
  it('decodes standard base64 of 256 bytes, for many random signatures', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(256);
      expect(checkSignatureText(bytes.toString('base64')).equals(bytes)).toBe(true);
    }
  });

  it('refuses 344 characters ending in == that are not all base64, wherever the bad one is', () => {
    const text = randomBytes(256).toString('base64');
    for (const bad of ['$', ' ', '\n', '.', '=', '*']) {
      for (const at of [0, 1, 100, 341]) {
        const spoilt = text.slice(0, at) + bad + text.slice(at + 1);
        expect(() => checkSignatureText(spoilt), `${JSON.stringify(bad)} at ${at}`).toThrow(
          /SIGN_BAD_SIGNATURE|not standard base64|decodes to/,
        );
      }
    }
  });

  it('refuses 342 base64 characters followed by two that are not padding (they decode to 256 bytes)', () => {
    const text = randomBytes(256).toString('base64');
    for (const tail of ['$$', '  ', '\r\n', '.=', '=.']) {
      const spoilt = text.slice(0, 342) + tail;
      expect(Buffer.from(spoilt, 'base64').length, JSON.stringify(tail)).toBe(256);
      expect(() => checkSignatureText(spoilt), JSON.stringify(tail)).toThrow(/not standard base64/);
    }
  });

  it('refuses the base64url spelling, and names it', () => {
    let bytes = randomBytes(256);
    while (!/[+/]/.test(bytes.toString('base64'))) bytes = randomBytes(256);
    expect(() => checkSignatureText(bytes.toString('base64url') + '==')).toThrow(/base64url/);
  });

  it('refuses a signature of another length, naming the length', () => {
    expect(() => checkSignatureText(randomBytes(128).toString('base64'))).toThrow(/decodes to 128 bytes/);
  });
});

describe('signatureView', () => {
  /** What a call gives: the bytes, or the error's message. */
  const outcome = (fn: () => Buffer) => {
    try {
      return Buffer.from(fn()).toString('hex');
    } catch (error) {
      return `throws ${(error as Error).message}`;
    }
  };
  it('gives what checkSignatureText gives, bytes or error, on good and spoilt signatures', () => {
    const texts: string[] = [];
    for (let i = 0; i < 50; i++) texts.push(randomBytes(256).toString('base64'));
    const text = texts[0]!;
    for (const bad of ['$', ' ', '\n', '.', '=', '*', '-', '_']) {
      for (const at of [0, 1, 100, 341, 342, 343]) texts.push(text.slice(0, at) + bad + text.slice(at + 1));
    }
    for (const tail of ['$$', '  ', '\r\n', '.=', '=.']) texts.push(text.slice(0, 342) + tail);
    texts.push(randomBytes(128).toString('base64'), randomBytes(257).toString('base64'), `${text}=`, '');
    for (const t of texts)
      expect(
        outcome(() => signatureView(t)),
        JSON.stringify(t),
      ).toBe(outcome(() => checkSignatureText(t)));
  });
});
