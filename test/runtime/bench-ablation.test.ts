/**
 * The bench-only switch of runtime/bench-ablation.ts: which parts a value of
 * CLOUDFN_BENCH_ABLATE turns off, and that a server run without it has every part on.
 */
import { describe, expect, it } from 'vitest';
import { ABLATION_PARTS, ablation, readAblation } from '../../runtime/bench-ablation.js';

describe('readAblation', () => {
  it('turns nothing off when unset or empty', () => {
    for (const value of [undefined, '', ' , ']) {
      expect(Object.values(readAblation(value))).toEqual(ABLATION_PARTS.map(() => false));
    }
  });

  it('turns off exactly the named parts', () => {
    const off = readAblation('log, trace');
    expect(ABLATION_PARTS.filter((part) => off[part])).toEqual(['log', 'trace']);
  });

  it('turns every part off with all', () => {
    expect(Object.values(readAblation('all')).every(Boolean)).toBe(true);
  });

  it('refuses a part it does not know, naming it and the known ones', () => {
    expect(() => readAblation('log,logging')).toThrow(/no part logging; use all or log, logid, trace/);
  });
});

it('has every part on in a process that does not set CLOUDFN_BENCH_ABLATE', () => {
  expect(process.env['CLOUDFN_BENCH_ABLATE']).toBeUndefined();
  expect(Object.values(ablation).some(Boolean)).toBe(false);
});
