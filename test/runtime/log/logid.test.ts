/**
 * Logids (runtime/log/logid.ts): generated ones sort by time and never repeat; an incoming one
 * is echoed only when it is safe to put in a header and a log line.
 */
import { describe, expect, it } from 'vitest';
import { generateLogid, pickLogid } from '../../../runtime/log/logid.js';

describe('logids', () => {
  it('generates ids that sort by time and never repeat', async () => {
    const first = generateLogid();
    await new Promise((r) => setTimeout(r, 3));
    const ids = Array.from({ length: 1000 }, generateLogid);
    expect(new Set(ids).size).toBe(1000);
    expect(first < ids[0]!).toBe(true);
    expect(first).toMatch(/^[0-9a-f]{24}$/);
  });

  it('echoes a safe incoming id and replaces anything else', () => {
    expect(pickLogid('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    for (const bad of ['a b', 'x\r\ny', '', 'é', 'a'.repeat(129), ['a', 'b']])
      expect(pickLogid(bad)).toMatch(/^[0-9a-f]{24}$/);
  });
});
