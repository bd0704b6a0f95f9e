/** The request's five lines and the response's three, built exactly. */
import { describe, expect, it } from 'vitest';
import { responseStringToSign, showLineEnds, signedPath, stringToSign } from '../../src/sign/index.js';
import { checkedResponseBytes, checkedResponseView, isNonce, nonceText } from '../../src/sign/string-to-sign.js';

const base = { method: 'GET', timestamp: 1700000000, nonce: 'n' };

describe('signedPath', () => {
  const table: Array<[string, string]> = [
    ['/v1/videos', '/v1/videos'],
    ['/v1/videos?page=2&size=20', '/v1/videos?page=2&size=20'],
    // fetch sends a quote in the query as %27 and leaves %7e and + alone (test/sign/wire-url.test.ts).
    ["/v1/a%2Fb?q=%7e&x=a+b&y='", '/v1/a%2Fb?q=%7e&x=a+b&y=%27'],
    ['https://api.example.com/v1/videos?page=2', '/v1/videos?page=2'],
    ['HTTP://user:pw@host:8080/p', '/p'],
    ['https://api.example.com', '/'],
    ['https://api.example.com/', '/'],
    ['https://api.example.com?a=1', '/?a=1'],
    ['/v1/x#fragment', '/v1/x'],
    ['', '/'],
    ['?a=1', '/?a=1'],
  ];
  for (const [url, path] of table) it(`${JSON.stringify(url)} → ${path}`, () => expect(signedPath(url)).toBe(path));
  it('refuses a relative path and line breaks', () => {
    expect(() => signedPath('v1/videos')).toThrow(
      'url must start with / or be an absolute URL (https://host/path), got "v1/videos"',
    );
    expect(() => signedPath('/a\nb')).toThrow(/line break/);
  });
});

describe('stringToSign', () => {
  it('upper-cases the method and ends every line with LF', () => {
    expect(stringToSign({ ...base, method: 'post', url: '/x', body: '{}' })).toBe('POST\n/x\n1700000000\nn\n{}\n');
  });
  it('an empty body is an empty line', () => {
    expect(stringToSign({ ...base, url: '/x' })).toBe('GET\n/x\n1700000000\nn\n\n');
    expect(stringToSign({ ...base, url: '/x', body: Buffer.alloc(0) })).toBe('GET\n/x\n1700000000\nn\n\n');
  });
  it('a body ending with LF still gets its own LF', () => {
    expect(stringToSign({ ...base, url: '/x', body: 'a\n' })).toBe('GET\n/x\n1700000000\nn\na\n\n');
  });
  it('accepts the timestamp as digits text', () => {
    expect(stringToSign({ ...base, timestamp: '1700000001', url: '/' })).toBe('GET\n/\n1700000001\nn\n\n');
  });
  it('refuses a parsed body, explaining why', () => {
    expect(() => stringToSign({ ...base, url: '/', body: { a: 1 } as unknown as string })).toThrow(
      /re-serializing JSON \(JSON.stringify\) changes escapes, key order or blanks/,
    );
  });
  it('refuses a bad timestamp, nonce or method', () => {
    expect(() => stringToSign({ ...base, timestamp: 1700000000.5, url: '/' })).toThrow(
      /timestamp must be whole seconds/,
    );
    expect(() => stringToSign({ ...base, timestamp: '17e8', url: '/' })).toThrow(/timestamp must be whole seconds/);
    expect(() => stringToSign({ ...base, nonce: 'a b', url: '/' })).toThrow(/nonce must be 1 to 128 printable ASCII/);
    expect(() => stringToSign({ ...base, nonce: 'a"b', url: '/' })).toThrow(/nonce must be/);
    expect(() => stringToSign({ ...base, method: 'GE T', url: '/' })).toThrow(/method must be a token/);
  });
});

describe('responseStringToSign', () => {
  it('three lines, the last the raw body', () => {
    expect(responseStringToSign({ timestamp: 1, nonce: 'n', body: '{"a":"你"}' })).toBe('1\nn\n{"a":"你"}\n');
    expect(responseStringToSign({ timestamp: 1, nonce: 'n' })).toBe('1\nn\n\n');
  });
});

it('showLineEnds makes LF and CR visible', () => {
  expect(showLineEnds('a\r\nb\n')).toBe('a␍⏎\nb⏎\n');
});

describe('isNonce', () => {
  const GRAMMAR = /^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]{1,128}$/;
  it('agrees with the grammar on every character up to U+00FF and a few beyond', () => {
    const codes = [...Array.from({ length: 256 }, (_, i) => i), 0x3000, 0xd800, 0xfeff, 0xff0c];
    for (const code of codes) {
      const c = String.fromCharCode(code);
      for (const text of [c, `a${c}`, `${c}z`, `ab${c}cd`])
        expect(isNonce(text), JSON.stringify(text)).toBe(GRAMMAR.test(text));
    }
  });
  it('takes 1 to 128 characters', () => {
    for (const length of [0, 1, 32, 127, 128, 129, 300]) {
      const text = 'n'.repeat(length);
      expect(isNonce(text), String(length)).toBe(GRAMMAR.test(text));
    }
    expect(() => nonceText('n'.repeat(129))).toThrow(/nonce must be 1 to 128 printable ASCII/);
  });
});

describe('checkedResponseView', () => {
  /** The two lines before the body: 10 digits, LF, 6 characters, LF. */
  const HEAD = '1700000000\nnonce1\n'.length;
  const bodies: Array<[string, Parameters<typeof checkedResponseBytes>[2]]> = [
    ['undefined', undefined],
    ['null', null],
    ['empty text', ''],
    ['JSON', '{"code":0,"data":{"vid":"v123"}}'],
    ['text ending in LF', 'a\n'],
    ['non-ASCII text', '{"a":"你好","e":"é😀"}'],
    ['a lone surrogate (U+FFFD on the wire)', 'x\ud800y'],
    ['a Buffer', Buffer.from('{"a":1}')],
    ['a view into a larger ArrayBuffer', new Uint8Array(new TextEncoder().encode('__{"b":2}__').buffer, 2, 7)],
    ['an ArrayBuffer', new Uint8Array([123, 125]).buffer],
    ['text at the edge of the shared Buffer', '你'.repeat(Math.floor((8192 - HEAD - 1) / 3))],
    ['text past the edge of the shared Buffer', '你'.repeat(Math.floor((8192 - HEAD - 1) / 3) + 1)],
    ['a large multi-byte text', '你'.repeat(5000)],
    ['bytes at the edge of the shared Buffer', Buffer.alloc(8192 - HEAD - 1, 0x42)],
    ['bytes past the edge of the shared Buffer', Buffer.alloc(8192 - HEAD, 0x41)],
  ];
  for (const [name, body] of bodies) {
    it(`gives the bytes checkedResponseBytes gives: ${name}`, () => {
      const expected = checkedResponseBytes('1700000000', 'nonce1', body);
      const view = checkedResponseView('1700000000', 'nonce1', body);
      expect(Buffer.from(view).equals(expected)).toBe(true);
    });
  }
  it('refuses an object as checkedResponseBytes does', () => {
    const body = { a: 1 } as unknown as string;
    expect(() => checkedResponseView('1', 'n', body)).toThrow(/body must be the raw text or bytes/);
  });
  it('is overwritten by the next call (valid until then only)', () => {
    const first = checkedResponseView('1', 'a', 'one');
    const copy = Buffer.from(first);
    checkedResponseView('2', 'b', 'two');
    expect(Buffer.from(first).equals(copy)).toBe(false);
  });
});
