import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CloudfnError } from '../../../runtime/errors.js';
import { contentTypeParam, mediaType } from '../../../runtime/body/content-type.js';
import { jsonErrorLocator, poisonWalk } from '../../../runtime/body/json.js';
import { formParser, parseBody } from '../../../runtime/body/parse-body.js';
import type { Limits } from '../../../runtime/types.js';

const limits: Limits = {
  maxBodySize: 10 * 1024 * 1024,
  maxFileSize: 10 * 1024 * 1024,
  maxFiles: 10,
  maxFields: 100,
  maxParts: 110,
  maxFieldSize: 1024 * 1024,
  maxPartHeaderPairs: 2000,
  maxParams: 1000,
};
const strict = { protoAction: 'error' } as const;
const lenient = { protoAction: 'remove' } as const;

function parse(
  type: string | undefined,
  body: Buffer | string,
  options: { protoAction: 'error' | 'remove' } = strict,
): unknown {
  return parseBody(type, typeof body === 'string' ? Buffer.from(body) : body, limits, options);
}

function thrown(fn: () => unknown): CloudfnError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CloudfnError);
    return error as CloudfnError;
  }
  throw new Error('expected a throw');
}

const utf16le = (text: string): Buffer => Buffer.from(text, 'utf16le');

// The modules parseBody imports on first need (the JSON error locator, the poison walk, the
// urlencoded parser), loaded before any case runs: the cases below that take fresh copies of
// the modules show what comes before, and a load after them would give these modules' own
// imports fresh copies too (another CloudfnError class).
beforeAll(() => Promise.all([jsonErrorLocator.load(), poisonWalk.load(), formParser.load()]));

describe('mediaType and contentTypeParam', () => {
  it.each([
    [undefined, ''],
    ['application/json', 'application/json'],
    ['Application/JSON; charset=UTF-8', 'application/json'],
    ['  text/plain  ;charset=gbk', 'text/plain'],
  ])('mediaType(%j) is %j', (header, expected) => expect(mediaType(header)).toBe(expected));

  it.each([
    ['multipart/form-data; boundary=abc', 'boundary', 'abc'],
    ['multipart/form-data; boundary="a b;c"', 'boundary', 'a b;c'],
    ['multipart/form-data; BOUNDARY="a\\"b"; charset=x', 'boundary', 'a"b'],
    ['text/plain;charset=gbk;format=flowed', 'charset', 'gbk'],
    ['text/plain; format=flowed; charset="utf-8"', 'charset', 'utf-8'],
    ['text/plain; charset', 'charset', undefined],
    ['text/plain', 'charset', undefined],
    [undefined, 'charset', undefined],
  ])('contentTypeParam(%j, %j) is %j', (header, name, expected) =>
    expect(contentTypeParam(header, name)).toBe(expected),
  );
});

describe('parseBody: malformed JSON before its locator has loaded', () => {
  it('rejects the first bad body with the same located error, then throws synchronously', async () => {
    // A fresh copy of the modules: the locator of JSON errors not imported yet.
    vi.resetModules();
    const fresh = await import('../../../runtime/body/parse-body.js');
    const { CloudfnError: FreshError } = await import('../../../runtime/errors.js');
    const first = fresh.parseBody('application/json', Buffer.from('{"a":}'), limits, strict);
    expect(first).toBeInstanceOf(Promise);
    const error = await (first as Promise<unknown>).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(FreshError);
    expect([(error as CloudfnError).code, (error as CloudfnError).status]).toEqual(['CLOUDFN_BAD_JSON', 400]);
    expect((error as Error).message).toBe(
      "the body is not valid JSON: unexpected '}' at line 1, column 6 (position 5)",
    );
    // Loaded now: the next bad body throws at once, with the same words.
    expect(() => fresh.parseBody('application/json', Buffer.from('[1,]'), limits, strict)).toThrow(
      "the body is not valid JSON: unexpected ']' at line 1, column 4 (position 3)",
    );
    // A body that parses never waits for the locator.
    expect(fresh.parseBody('application/json', Buffer.from('{"b":2}'), limits, strict)).toStrictEqual({ b: 2 });
  });

  it('checks the first body that may hold a poisoned key once the walk has loaded, then at once', async () => {
    vi.resetModules();
    const fresh = await import('../../../runtime/body/parse-body.js');
    const body = (text: string): Buffer => Buffer.from(text);
    const refused = fresh.parseBody('application/json', body('{"__proto__":{"admin":true}}'), limits, strict);
    expect(refused).toBeInstanceOf(Promise);
    const error = await (refused as Promise<unknown>).then(
      () => undefined,
      (reason: unknown) => reason as CloudfnError,
    );
    expect([error?.code, error?.status]).toEqual(['CLOUDFN_POISONED_JSON', 400]);
    expect(error?.message).toContain('"__proto__"');
    // Loaded now: refused, stripped and kept synchronously.
    expect(() => fresh.parseBody('application/json', body('{"constructor":{"prototype":1}}'), limits, strict)).toThrow(
      '"constructor.prototype"',
    );
    expect(fresh.parseBody('application/json', body('{"a":1,"__proto__":1}'), limits, lenient)).toStrictEqual({
      a: 1,
    });
    expect(fresh.parseBody('application/json', body('{"\\u00e9":1}'), limits, strict)).toStrictEqual({ é: 1 });
  });

  it('strips the keys of the first body with protoAction remove once the walk has loaded', async () => {
    vi.resetModules();
    const fresh = await import('../../../runtime/body/parse-body.js');
    const first = fresh.parseBody(
      'application/json',
      Buffer.from('{"a":{"__proto__":{"x":1}},"b":2}'),
      limits,
      lenient,
    );
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toStrictEqual({ a: {}, b: 2 });
  });
});

describe('parseBody: JSON', () => {
  it.each<[string, Buffer | string, unknown]>([
    ['application/json', '{"a":1,"b":[true,null,"x"]}', { a: 1, b: [true, null, 'x'] }],
    ['application/json; charset=utf-8', '[1,2]', [1, 2]],
    ['APPLICATION/JSON; Charset=UTF-8', '"text"', 'text'],
    ['application/json', '42', 42],
    ['application/json', 'null', null],
    ['application/vnd.api+json', '{"data":{"id":"1"}}', { data: { id: '1' } }],
    ['application/problem+json; charset=utf-8', '{"title":"x"}', { title: 'x' }],
    ['application/json', '\uFEFF{"bom":true}', { bom: true }],
    ['application/json; charset=utf-16le', utf16le('\uFEFF{"u":"你好"}'), { u: '你好' }],
    [
      'application/json; charset=gbk',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc4, 0xe3, 0x22, 0x7d]),
      { a: '你' },
    ],
    [
      'application/json; charset=latin1',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]),
      { a: 'é' },
    ],
    ['application/json', '', {}],
    ['application/json', '  \r\n ', {}],
    ['application/json', '{"constructor":"a string is harmless"}', { constructor: 'a string is harmless' }],
    ['application/json', '{"a":"__proto__ in a value"}', { a: '__proto__ in a value' }],
    ['application/json', '{"\\u00e9t\\u00e9":1}', { été: 1 }],
  ])('%s %j', (type, body, expected) => {
    expect(parse(type, body)).toStrictEqual(expected);
  });

  it('answers synchronously, not with a Promise', () => {
    expect(parse('application/json', '{}')).not.toBeInstanceOf(Promise);
    expect(parse('application/x-www-form-urlencoded', 'a=1')).not.toBeInstanceOf(Promise);
    expect(parse('text/plain', 'x')).not.toBeInstanceOf(Promise);
  });

  it.each([
    ['{"a":}', "unexpected '}' at line 1, column 6 (position 5)"],
    ['{"a":1', 'unexpected end of input at line 1, column 7 (position 6)'],
    ['{\n  "a": 1,\n  "b": [1, 2,]\n}', "unexpected ']' at line 3, column 14 (position 25)"],
    ["{'a':1}", "unexpected ''' at line 1, column 2 (position 1)"],
    ['[1] [2]', "unexpected '[' at line 1, column 5 (position 4)"],
    ['{"a":"x\ty"}', 'unexpected control character U+0009 at line 1, column 8 (position 7)'],
    ['{"a":tru}', "unexpected '}' at line 1, column 9 (position 8)"],
    ['{"a":01}', "unexpected '1' at line 1, column 7 (position 6)"],
    ['{"a":"\\x"}', "unexpected 'x' at line 1, column 8 (position 7)"],
    ['{"a" 1}', "unexpected '1' at line 1, column 6 (position 5)"],
    ['['.repeat(100_000), 'unexpected end of input at line 1, column 100001 (position 100000)'],
  ])('refuses %j with CLOUDFN_BAD_JSON saying where', (body, where) => {
    const error = thrown(() => parse('application/json', body));
    expect(error.code).toBe('CLOUDFN_BAD_JSON');
    expect(error.status).toBe(400);
    expect(error.message).toBe(`the body is not valid JSON: ${where}`);
  });

  it('refuses bytes that are not valid in the charset', () => {
    const error = thrown(() => parse('application/json', Buffer.from([0x22, 0xff, 0x22])));
    expect(error.code).toBe('CLOUDFN_BAD_JSON');
    expect(error.message).toContain('not valid utf-8');
  });

  it('refuses an unknown charset with 415', () => {
    const error = thrown(() => parse('application/json; charset=klingon', '{}'));
    expect([error.code, error.status]).toEqual(['CLOUDFN_BAD_CHARSET', 415]);
    expect(error.message).toContain('"klingon"');
  });

  const poisoned: [string, string, unknown][] = [
    ['{"__proto__":{"admin":true}}', '__proto__', {}],
    ['{"a":1,"__proto__":1}', '__proto__', { a: 1 }],
    ['{"a":{"b":[{"__proto__":{"x":1}}]}}', '__proto__', { a: { b: [{}] } }],
    ['{"constructor":{"prototype":{"admin":true}}}', 'constructor.prototype', {}],
    ['[{"x":{"constructor":{"prototype":1},"y":2}}]', 'constructor.prototype', [{ x: { y: 2 } }]],
    ['{"\\u005f_proto__":{"admin":true}}', '__proto__', {}],
    ['{"_\\u005fproto\\u005f_":1,"k":2}', '__proto__', { k: 2 }],
  ];

  it.each(poisoned)('refuses %j with protoAction error', (body, key) => {
    const error = thrown(() => parse('application/json', body, strict));
    expect([error.code, error.status]).toEqual(['CLOUDFN_POISONED_JSON', 400]);
    expect(error.message).toContain(`"${key}"`);
  });

  it.each(poisoned)('strips %j with protoAction remove', (body, _key, expected) => {
    const value = parse('application/json', body, lenient);
    expect(value).toStrictEqual(expected);
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
    expect(JSON.stringify(value)).not.toMatch(/__proto__|prototype/);
  });

  it('keeps a "constructor" key whose value has no prototype key', () => {
    // toStrictEqual compares .constructor itself, so compare the serialized form.
    const value = parse('application/json', '{"constructor":{"name":"x"}}') as Record<string, unknown>;
    expect(JSON.stringify(value)).toBe('{"constructor":{"name":"x"}}');
    expect(Object.hasOwn(value, 'constructor')).toBe(true);
  });
});

describe('parseBody: urlencoded, text and everything else', () => {
  it('answers the first urlencoded body of a process with a Promise of its params', async () => {
    vi.resetModules();
    const fresh = await import('../../../runtime/body/parse-body.js');
    const first = fresh.parseBody('application/x-www-form-urlencoded', Buffer.from('a=1&a=2'), limits, strict);
    expect(first).toBeInstanceOf(Promise);
    expect({ ...((await first) as object) }).toStrictEqual({ a: ['1', '2'] });
    // Loaded now: the next body is refused at once.
    expect(() => fresh.parseBody('application/x-www-form-urlencoded', Buffer.from('a=%zz'), limits, strict)).toThrow(
      expect.objectContaining({ code: 'CLOUDFN_BAD_FORM', status: 400 }),
    );
  });

  it.each<[string | undefined, Buffer | string, unknown]>([
    ['application/x-www-form-urlencoded', 'a=1&a=2&b=x+y', { a: ['1', '2'], b: 'x y' }],
    ['application/x-www-form-urlencoded; charset=UTF-8', 'name=%E4%BD%A0', { name: '你' }],
    ['application/x-www-form-urlencoded', '', {}],
    ['application/x-www-form-urlencoded', '__proto__=1&constructor=2&ok=3', { ok: '3' }],
    ['text/plain', 'hello\nworld', 'hello\nworld'],
    ['text/plain; charset=utf-8', '你好', '你好'],
    ['text/plain', '', ''],
    ['text/plain', '\uFEFFbom', 'bom'],
    ['text/plain; charset=gbk', Buffer.from([0xc4, 0xe3, 0xba, 0xc3]), '你好'],
    ['text/plain; charset=GB18030', Buffer.from([0xc4, 0xe3, 0xba, 0xc3]), '你好'],
    ['text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'café'],
    ['text/plain; charset="latin1"', Buffer.from([0xe9]), 'é'],
    ['text/plain; charset=utf-16le', utf16le('hé'), 'hé'],
    ['text/plain; charset=shift_jis', Buffer.from([0x82, 0xa0]), 'あ'],
  ])('%s %j', (type, body, expected) => {
    const value = parse(type, body);
    if (typeof expected === 'object' && expected !== null) {
      expect({ ...(value as object) }).toStrictEqual(expected);
      expect('toString' in (value as object)).toBe(false);
    } else {
      expect(value).toStrictEqual(expected);
    }
  });

  it.each([
    ['text/plain; charset=klingon', Buffer.from('x'), 'CLOUDFN_BAD_CHARSET', 415],
    ['text/plain', Buffer.from([0x68, 0xff]), 'CLOUDFN_BAD_TEXT', 400],
    ['text/plain; charset=gbk', Buffer.from([0xc4]), 'CLOUDFN_BAD_TEXT', 400],
    ['application/x-www-form-urlencoded', Buffer.from('a=%zz'), 'CLOUDFN_BAD_FORM', 400],
  ])('%s %j throws %s', (type, body, code, status) => {
    const error = thrown(() => parse(type, body));
    expect([error.code, error.status]).toEqual([code, status]);
  });

  it.each([undefined, '', 'application/octet-stream', 'image/png', 'text/html', 'text/csv; charset=utf-8', 'nonsense'])(
    'hands %j over as the Buffer itself',
    (type) => {
      const body = Buffer.from([0, 1, 2, 0xff]);
      expect(parse(type, body)).toBe(body);
    },
  );
});
