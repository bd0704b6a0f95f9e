/** `retryAfterSeconds`: both forms of Retry-After (RFC 9110 §10.2.3) and what it refuses. */
import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../src/media/retry-after.js';

const now = Date.parse('2026-10-21T07:28:00Z');

describe('retryAfterSeconds', () => {
  it.each([
    ['120', 120],
    [' 0 ', 0],
    ['1.5', 1.5],
    ['Wed, 21 Oct 2026 07:28:30 GMT', 30],
    ['Wednesday, 21-Oct-26 07:29:00 GMT', 60],
    ['Wed Oct 21 07:28:10 2026', 10],
    ['Wed, 21 Oct 2026 07:28:00 GMT', 0],
    ['Wed, 21 Oct 2026 07:00:00 GMT', 0],
  ])('%j is %d seconds', (value, seconds) => {
    expect(retryAfterSeconds(value, now)).toBe(seconds);
  });

  it.each([null, undefined, '', '-3', 'soon', 'Wed, 99 Foo 2026'])('%j is no answer', (value) => {
    expect(retryAfterSeconds(value, now)).toBeUndefined();
  });
});
