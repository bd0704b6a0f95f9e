import { describe, expect, it } from 'vitest';
import { CloudfnError } from '../../../runtime/errors.js';
import { parseForm } from '../../../runtime/body/form.js';
import { parseQuery } from '../../../runtime/body/query.js';

const parsed: [string, Record<string, string | string[]>][] = [
  ['', {}],
  ['a=1', { a: '1' }],
  ['a=1&b=2', { a: '1', b: '2' }],
  ['a=1&a=2&a=3', { a: ['1', '2', '3'] }],
  ['a=1&b=x&a=2', { a: ['1', '2'], b: 'x' }],
  ['q=hello+world', { q: 'hello world' }],
  ['hello+there=1', { 'hello there': '1' }],
  ['q=a%2Bb', { q: 'a+b' }],
  ['q=a%2bb+c', { q: 'a+b c' }],
  ['name=%E4%BD%A0%E5%A5%BD', { name: '你好' }],
  ['%E4%BD%A0=1', { 你: '1' }],
  ['flag', { flag: '' }],
  ['flag&x=1', { flag: '', x: '1' }],
  ['a=', { a: '' }],
  ['=v', { '': 'v' }],
  ['a=b=c', { a: 'b=c' }],
  ['&&a=1&&', { a: '1' }],
  ['a=%20', { a: ' ' }],
  ['emoji=%F0%9F%98%80', { emoji: '😀' }],
  ['a=1&__proto__=x', { a: '1' }],
  ['constructor=x&prototype=y&b=2', { b: '2' }],
  ['__proto__%5Bx%5D=1', { '__proto__[x]': '1' }],
  ['%5F_proto__=1', {}],
  ['toString=1', { toString: '1' }],
  ['hasOwnProperty=1&hasOwnProperty=2', { hasOwnProperty: ['1', '2'] }],
];

const bad = ['a=%zz', 'a=%', 'a=%4', '%=1', 'a=%FF', 'a=%C0%80', 'a=%ED%A0%80', 'ok=1&b=%E4%BD'];

describe('parseQuery', () => {
  it.each(parsed)('%j', (qs, expected) => {
    const result = parseQuery(qs);
    expect({ ...result }).toStrictEqual(expected);
    expect(Object.keys(result)).toEqual(Object.keys(expected));
  });

  it('returns maps with nothing inherited, so poisoned keys reach no prototype', () => {
    const result = parseQuery('a=1&__proto__=polluted');
    expect('toString' in result).toBe(false);
    expect('__proto__' in result).toBe(false);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
  });

  it.each(bad)('refuses %j with CLOUDFN_BAD_QUERY naming the pair', (qs) => {
    let error: unknown;
    try {
      parseQuery(qs);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CloudfnError);
    const e = error as CloudfnError;
    expect(e.code).toBe('CLOUDFN_BAD_QUERY');
    expect(e.status).toBe(400);
    const badPair = qs.split('&').at(-1) as string;
    expect(e.message).toContain(JSON.stringify(badPair));
  });

  it('cuts a long bad pair in the message', () => {
    const long = `a=${'x'.repeat(10_000)}%zz`;
    expect(() => parseQuery(long)).toThrow(/^the query pair "a=x{58}"\.\.\. has a bad percent-escape/);
  });

  it('agrees with URLSearchParams on well-formed input', () => {
    const qs = 'a=1&b=%E2%82%AC+x&a=&c&d=%2B%26%3D';
    const expected: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(qs)) {
      const prev = expected[k];
      expected[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    expect({ ...parseQuery(qs) }).toStrictEqual(expected);
  });
});

describe('parseForm', () => {
  it.each(parsed)('%j as a Buffer body', (qs, expected) => {
    expect({ ...parseForm(Buffer.from(qs)) }).toStrictEqual(expected);
  });

  it('accepts raw UTF-8 text, not only escapes', () => {
    expect({ ...parseForm(Buffer.from('name=Jürgen&city=北京')) }).toStrictEqual({ name: 'Jürgen', city: '北京' });
  });

  it.each([
    ['a bad escape', Buffer.from('a=1&b=%zz'), '"b=%zz"'],
    ['raw bytes that are not UTF-8', Buffer.from([0x61, 0x3d, 0x31, 0x26, 0x62, 0x3d, 0xff]), '"b=\uFFFD"'],
  ])('refuses %s with CLOUDFN_BAD_FORM', (_name, body, shown) => {
    expect(() => parseForm(body)).toThrow(expect.objectContaining({ code: 'CLOUDFN_BAD_FORM', status: 400 }));
    expect(() => parseForm(body)).toThrow(shown);
  });

  it('decodes only the pairs before maxParams: an error among them first, then 413', () => {
    const many = Buffer.from(`${'a=1&'.repeat(5)}&&c=3`);
    expect(() => parseForm(many, 5)).toThrow(expect.objectContaining({ code: 'CLOUDFN_TOO_MANY_PARAMS', status: 413 }));
    // Empty pairs do not count: five pairs and separators alone fit.
    expect(Object.keys(parseForm(Buffer.from(`${'a=1&'.repeat(5)}&&&`), 5))).toEqual(['a']);
    expect(() => parseForm(Buffer.from(`a=%zz&${'a=1&'.repeat(9)}`), 5)).toThrow(
      expect.objectContaining({ code: 'CLOUDFN_BAD_FORM' }),
    );
    // Bytes after the limit are never decoded: past it, a bad byte there is not reached.
    const tail = Buffer.concat([Buffer.from('a=1&'.repeat(6)), Buffer.from([0x62, 0x3d, 0xff])]);
    expect(() => parseForm(tail, 5)).toThrow(expect.objectContaining({ code: 'CLOUDFN_TOO_MANY_PARAMS' }));
    const within = Buffer.concat([Buffer.from('a=1&'.repeat(2)), Buffer.from([0x62, 0x3d, 0xff])]);
    expect(() => parseForm(within, 5)).toThrow(expect.objectContaining({ code: 'CLOUDFN_BAD_FORM' }));
  });
});
