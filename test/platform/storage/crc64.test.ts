/**
 * The store's CRC-64/ECMA-182 against the check value of the CRC catalogue and against the
 * implementation the TOS SDK checks responses with (tos-crc64-js), an independent one.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Crc64, crc64 } from '../../../src/platform/storage/crc64.js';

const sdkCrc = createRequire(import.meta.url)('tos-crc64-js') as { crc64(data: Buffer, prev?: string): string };

describe('crc64', () => {
  it('gives the catalogue check value of "123456789" and 0 for nothing', () => {
    expect(crc64(Buffer.from('123456789'))).toBe(0x995dc9bbdf1939fan.toString());
    expect(crc64(Buffer.alloc(0))).toBe('0');
  });

  it('agrees with the SDK on random bodies, whole or in chunks', () => {
    for (const size of [1, 7, 8, 255, 4096, 100_003]) {
      const data = randomBytes(size);
      const running = new Crc64();
      for (let at = 0; at < size; at += 1000) running.update(data.subarray(at, at + 1000));
      expect(crc64(data)).toBe(sdkCrc.crc64(data));
      expect(running.digest()).toBe(sdkCrc.crc64(data));
    }
  });
});
