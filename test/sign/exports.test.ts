/**
 * cloudfn/sign's documented header names and error codes (its export list is pinned, with every
 * entry's, in test/exports.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sign from '../../src/sign/index.js';

describe('cloudfn/sign', () => {
  it('keeps the documented header names', () => {
    expect(sign.defaultHeaderProfile).toEqual({
      authorization: 'Platform-Authorization',
      timestamp: 'Platform-Timestamp',
      nonce: 'Platform-Nonce-Str',
      signature: 'Platform-Signature',
      logid: 'x-platform-logid',
    });
  });

  it('documents every SIGN_ code in its section of docs/errors.md, and no other', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('<!-- sign:begin -->'), doc.indexOf('<!-- sign:end -->'));
    const headings = [...section.matchAll(/^### (\S+)$/gm)].map((m) => m[1]);
    expect(headings.sort()).toEqual(Object.keys(sign.signErrors).sort());
    for (const [code, spec] of Object.entries(sign.signErrors)) {
      expect(code).toMatch(/^SIGN_[A-Z_]+$/);
      expect(section).toContain(`### ${code}\n\n${spec.status}.`);
    }
  });

  it('SignatureError carries code, status and an exposed message', () => {
    const error = new sign.SignatureError('SIGN_REPLAY', 'x');
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.status, error.expose]).toEqual(['SignatureError', 'SIGN_REPLAY', 401, true]);
  });
});
