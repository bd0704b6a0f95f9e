/** The Platform-Authorization header: the writer, and the parser table (forms seen in real code, and refusals). */
import { describe, expect, it } from 'vitest';
import { formatCheckedAuthorization } from '../../src/sign/authorization.js';
import { formatAuthorization, parseAuthorization, SignatureError } from '../../src/sign/index.js';

const parts = { appid: 'wx1', nonce: 'N1', timestamp: '1700000000', keyVersion: '2', signature: 'c2ln+/==' };

describe('formatAuthorization', () => {
  it('writes the type and the five quoted fields in the documented order', () => {
    expect(formatAuthorization(parts)).toBe(
      'SHA256-RSA2048 appid="wx1",nonce_str="N1",timestamp="1700000000",key_version="2",signature="c2ln+/=="',
    );
  });
  it('refuses values that would break the quoting', () => {
    expect(() => formatAuthorization({ ...parts, appid: 'w"x' })).toThrow(
      /appid \(appid\) must be non-empty text without quotes/,
    );
    expect(() => formatAuthorization({ ...parts, keyVersion: '' })).toThrow(/keyVersion \(key_version\)/);
  });
  it('round-trips through the parser', () => {
    expect(parseAuthorization(formatAuthorization(parts))).toEqual(parts);
  });
});

describe('formatCheckedAuthorization (signRequest, whose nonce, timestamp and signature are safe)', () => {
  const checked = (p: typeof parts) =>
    formatCheckedAuthorization(p.appid, p.nonce, p.timestamp, p.keyVersion, p.signature);
  it('writes what formatAuthorization writes', () => {
    expect(checked(parts)).toBe(formatAuthorization(parts));
  });
  it('refuses the appid and key_version formatAuthorization refuses, with its messages', () => {
    for (const bad of ['w"x', 'a\\b', 'a\nb', 'a\rb', '']) {
      for (const key of ['appid', 'keyVersion'] as const) {
        const spoilt = { ...parts, [key]: bad };
        let expected = '';
        try {
          formatAuthorization(spoilt);
        } catch (error) {
          expected = (error as Error).message;
        }
        expect(expected, `${key} ${JSON.stringify(bad)}`).not.toBe('');
        expect(() => checked(spoilt)).toThrow(expected);
      }
    }
    expect(() => checked({ ...parts, appid: 1 as unknown as string })).toThrow(/appid \(appid\)/);
  });
});

const accepted: Array<[string, string]> = [
  [
    'documented form',
    'SHA256-RSA2048 appid="wx1",nonce_str="N1",timestamp="1700000000",key_version="2",signature="c2ln+/=="',
  ],
  [
    'any order',
    'SHA256-RSA2048 signature="c2ln+/==",key_version="2",timestamp="1700000000",nonce_str="N1",appid="wx1"',
  ],
  ['unquoted values', 'SHA256-RSA2048 appid=wx1,nonce_str=N1,timestamp=1700000000,key_version=2,signature=c2ln+/=='],
  [
    'blanks after commas',
    'SHA256-RSA2048 appid="wx1", nonce_str="N1", timestamp="1700000000", key_version="2", signature="c2ln+/=="',
  ],
  [
    'mixed quoting and blanks around =',
    'SHA256-RSA2048   appid = "wx1" ,nonce_str=N1 , timestamp="1700000000",key_version = 2,signature="c2ln+/=="',
  ],
  [
    'lower-case type and surrounding blanks',
    '  sha256-rsa2048 appid="wx1",nonce_str="N1",timestamp="1700000000",key_version="2",signature="c2ln+/=="  ',
  ],
  [
    'a trailing comma',
    'SHA256-RSA2048 appid="wx1",nonce_str="N1",timestamp="1700000000",key_version="2",signature="c2ln+/==",',
  ],
];

const refused: Array<[string, string | undefined, string, RegExp]> = [
  ['missing header', undefined, 'SIGN_NO_AUTHORIZATION', /carries no Platform-Authorization header/],
  ['empty header', '  ', 'SIGN_NO_AUTHORIZATION', /no Platform-Authorization/],
  ['another auth type', 'Bearer abc', 'SIGN_BAD_AUTH_TYPE', /"Bearer"; the scheme's only type is SHA256-RSA2048/],
  ['RSA-SHA256 typo', 'SHA256-RSA appid="wx1"', 'SIGN_BAD_AUTH_TYPE', /"SHA256-RSA"/],
  ['only the type', 'SHA256-RSA2048', 'SIGN_MISSING_FIELD', /lacks the field appid/],
  [
    'missing signature',
    'SHA256-RSA2048 appid="wx1",nonce_str="N1",timestamp="1",key_version="2"',
    'SIGN_MISSING_FIELD',
    /lacks the field signature/,
  ],
  [
    'missing key_version',
    'SHA256-RSA2048 appid="wx1",nonce_str="N1",timestamp="1",signature="x"',
    'SIGN_MISSING_FIELD',
    /field key_version/,
  ],
  [
    'empty nonce_str',
    'SHA256-RSA2048 appid="wx1",nonce_str="",timestamp="1",key_version="2",signature="x"',
    'SIGN_MISSING_FIELD',
    /has an empty field nonce_str/,
  ],
  [
    'empty unquoted appid',
    'SHA256-RSA2048 appid=,nonce_str="n",timestamp="1",key_version="2",signature="x"',
    'SIGN_MISSING_FIELD',
    /empty field appid/,
  ],
  [
    'repeated field',
    'SHA256-RSA2048 appid="wx1",appid="wx2",nonce_str="N1",timestamp="1",key_version="2",signature="x"',
    'SIGN_MALFORMED_AUTHORIZATION',
    /field appid appears twice/,
  ],
  [
    'unknown field nonce',
    'SHA256-RSA2048 appid="wx1",nonce="N1",timestamp="1",key_version="2",signature="x"',
    'SIGN_MALFORMED_AUTHORIZATION',
    /unknown field nonce \(the field is nonce_str\)/,
  ],
  [
    'unclosed quote',
    'SHA256-RSA2048 appid="wx1,nonce_str="N1"',
    'SIGN_MALFORMED_AUTHORIZATION',
    /a comma must follow the value of appid|no closing quote/,
  ],
  [
    'no closing quote at the end',
    'SHA256-RSA2048 appid="wx1',
    'SIGN_MALFORMED_AUTHORIZATION',
    /the value of appid has no closing quote/,
  ],
  ['no =', 'SHA256-RSA2048 appid "wx1"', 'SIGN_MALFORMED_AUTHORIZATION', /field appid has no = after it/],
  ['junk where a name goes', 'SHA256-RSA2048 ="x"', 'SIGN_MALFORMED_AUTHORIZATION', /where a field name was expected/],
];

describe('parseAuthorization', () => {
  for (const [name, header] of accepted) {
    it(`accepts ${name}`, () => expect(parseAuthorization(header)).toEqual(parts));
  }
  for (const [name, header, code, message] of refused) {
    it(`refuses ${name}`, () => {
      let caught: unknown;
      try {
        parseAuthorization(header);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SignatureError);
      expect((caught as SignatureError).code).toBe(code);
      expect((caught as SignatureError).status).toBe(401);
      expect((caught as SignatureError).message).toMatch(message);
    });
  }
  it('throws a TypeError for a non-string', () => {
    expect(() => parseAuthorization(['a'] as unknown as string)).toThrow(TypeError);
  });
});
