/**
 * W3C Trace Context headers read strictly: the cases of the W3C test suite
 * (w3c/trace-context, test/test.py), as values in and the trace kept or not, plus tracestate.
 */
import { describe, expect, it } from 'vitest';
import { IdSource } from '../../../runtime/trace/ids.js';
import { formatTraceparent, parseTraceparent } from '../../../runtime/trace/traceparent.js';
import { checkTracestate } from '../../../runtime/trace/tracestate.js';

const TRACE = '12345678901234567890123456789012';
const PARENT = '1234567890123456';
const VALID = `00-${TRACE}-${PARENT}-01`;

describe('parseTraceparent', () => {
  it('reads a valid version 00 header', () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE, parentId: PARENT, flags: 1 });
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-00`)?.flags).toBe(0);
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-ff`)?.flags).toBe(255);
  });

  it.each([
    ['leading space', ` ${VALID}`],
    ['leading tab', `\t${VALID}`],
    ['trailing space', `${VALID} `],
    ['trailing tab', `${VALID}\t`],
    ['both', `\t ${VALID} \t`],
  ])('allows optional white space around the value (%s)', (_name, value) => {
    expect(parseTraceparent(value)?.traceId).toBe(TRACE);
  });

  it.each([
    ['a future version, 55 characters', `cc-${TRACE}-${PARENT}-01`],
    ['a future version with more fields after a dash', `cc-${TRACE}-${PARENT}-01-what-the-future-will-be-like`],
  ])('reads %s as version 00', (_name, value) => {
    expect(parseTraceparent(value)).toEqual({ traceId: TRACE, parentId: PARENT, flags: 1 });
  });

  it.each([
    ['absent', undefined],
    ['two headers', [VALID, VALID]],
    ['two headers joined by node', `${VALID}, 00-${TRACE.replace('1', '2')}-${PARENT}-01`],
    ['empty', ''],
    ['version 00 with a trailing character', `${VALID}.`],
    ['version 00 with more fields', `${VALID}-what-the-future-will-be-like`],
    ['a future version with a non-dash after the flags', `cc-${TRACE}-${PARENT}-01.what-the-future-will-be-like`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['illegal version character first', `.0-${TRACE}-${PARENT}-01`],
    ['illegal version character second', `0.-${TRACE}-${PARENT}-01`],
    ['a 3-digit version', `000-${TRACE}-${PARENT}-01`],
    ['a 4-digit version', `0000-${TRACE}-${PARENT}-01`],
    ['a 1-digit version', `0-${TRACE}-${PARENT}-01`],
    ['a trace id of zeros', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an illegal first trace id character', `00-.${TRACE.slice(1)}-${PARENT}-01`],
    ['an illegal last trace id character', `00-${TRACE.slice(0, 31)}.-${PARENT}-01`],
    ['a trace id too long', `00-${TRACE}3-${PARENT}-01`],
    ['a trace id too short', `00-${TRACE.slice(0, 31)}-${PARENT}-01`],
    ['a parent id of zeros', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['an illegal first parent id character', `00-${TRACE}-.${PARENT.slice(1)}-01`],
    ['an illegal last parent id character', `00-${TRACE}-${PARENT.slice(0, 15)}.-01`],
    ['a parent id too long', `00-${TRACE}-${PARENT}7-01`],
    ['a parent id too short', `00-${TRACE}-${PARENT.slice(0, 15)}-01`],
    ['an illegal first flags character', `00-${TRACE}-${PARENT}-.0`],
    ['an illegal last flags character', `00-${TRACE}-${PARENT}-0.`],
    ['flags too long', `00-${TRACE}-${PARENT}-001`],
    ['flags too short', `00-${TRACE}-${PARENT}-1`],
    ['upper-case hex', `00-${TRACE.replace('1', 'A')}-${PARENT}-01`],
    ['a future version shorter than 55', `cc-${TRACE}-${PARENT}-1`],
  ])('ignores %s', (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});

describe('formatTraceparent', () => {
  it('writes version 00 with the sampled flag alone', () => {
    expect(formatTraceparent(TRACE, PARENT, true)).toBe(VALID);
    expect(formatTraceparent(TRACE, PARENT, false)).toBe(`00-${TRACE}-${PARENT}-00`);
  });
});

describe('checkTracestate', () => {
  const key = 'abcdefghijklmnopqrstuvwxyz0123456789_-*/';
  const value = [
    ...Array.from({ length: 0x2b - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)),
    ...Array.from({ length: 0x3c - 0x2d + 1 }, (_, i) => String.fromCharCode(0x2d + i)),
    ...Array.from({ length: 0x7e - 0x3e + 1 }, (_, i) => String.fromCharCode(0x3e + i)),
  ].join('');
  const members = (from: number, to: number): string =>
    Array.from({ length: to - from + 1 }, (_, i) => `bar${from + i}=${from + i}`).join(',');

  it.each([
    ['one member', 'foo=1', 'foo=1'],
    ['several headers, in order', ['foo=1,bar=2', 'rojo=1,congo=2', 'baz=3'], 'foo=1,bar=2,rojo=1,congo=2,baz=3'],
    ['node-joined headers', 'foo=1,bar=2, rojo=1', 'foo=1,bar=2,rojo=1'],
    ['white space around members', 'foo=1 \t , \t bar=2, \t baz=3', 'foo=1,bar=2,baz=3'],
    ['an empty header beside another', ['', 'foo=1'], 'foo=1'],
    ['every allowed character', `${key}=${value}`, `${key}=${value}`],
    ['a vendor key', `${key}@a-z0-9_-*/=${value}`, `${key}@a-z0-9_-*/=${value}`],
    ['a 256-character key', `foo=1,${'z'.repeat(256)}=1`, `foo=1,${'z'.repeat(256)}=1`],
    ['a 241@14 key', `foo=1,${'t'.repeat(241)}@${'v'.repeat(14)}=1`, `foo=1,${'t'.repeat(241)}@${'v'.repeat(14)}=1`],
    ['32 members', members(1, 32), members(1, 32)],
  ])('keeps %s', (_name, header, expected) => {
    expect(checkTracestate(header)).toBe(expected);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['a duplicated key', 'foo=1,foo=1'],
    ['a key repeated across headers', ['foo=1', 'foo=2']],
    ['a key with a space', 'foo =1'],
    ['an upper-case key', 'FOO=1'],
    ['a key with a dot', 'foo.bar=1'],
    ['an empty vendor', 'foo@=1,bar=2'],
    ['an empty tenant', '@foo=1,bar=2'],
    ['two @', 'foo@@bar=1,bar=2'],
    ['a tenant and two vendors', 'foo@bar@baz=1,bar=2'],
    ['a 257-character key', `foo=1,${'z'.repeat(257)}=1`],
    ['a 242-character tenant', `foo=1,${'t'.repeat(242)}@v=1`],
    ['a 15-character vendor', `foo=1,t@${'v'.repeat(15)}=1`],
    ['an = in a value', 'foo=bar=baz'],
    ['an empty value', 'foo=,bar=3'],
    ['33 members', members(1, 33)],
  ])('drops the whole list for %s', (_name, header) => {
    expect(checkTracestate(header)).toBeUndefined();
  });
});

describe('IdSource', () => {
  it('gives lower-case hex ids of the right length, all different, across batches', () => {
    const source = new IdSource();
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const traceId = source.traceId();
      const spanId = source.spanId();
      expect(traceId).toMatch(/^[\da-f]{32}$/);
      expect(spanId).toMatch(/^[\da-f]{16}$/);
      seen.add(traceId).add(spanId);
    }
    expect(seen.size).toBe(2000);
  });
});
