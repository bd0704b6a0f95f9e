/** Making nonces: 32 hex characters from the CSPRNG, each drawn from a batch and never twice. */
import { describe, expect, it } from 'vitest';
import { generateNonce } from '../../src/sign/index.js';

describe('generateNonce', () => {
  it('gives 32 lower-case hex characters, all distinct across several batches of 256', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const nonce = generateNonce();
      expect(nonce).toMatch(/^[0-9a-f]{32}$/);
      seen.add(nonce);
    }
    expect(seen.size).toBe(1000);
  });
});
