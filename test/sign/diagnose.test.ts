/** Naming the likely slip when a signature fails, and the doctor's checks. */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnoseRequest, diagnoseResponse, runDoctor, signRequest } from '../../src/sign/index.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const T = '1700000000';
const N = 'nonce1';
const sent = '{"title":"你好","url":"a/b"}';
const signRaw = (text: string) => sign('sha256', Buffer.from(text, 'utf8'), privateKey).toString('base64');

describe('diagnoseRequest names the slip', () => {
  const request = { publicKey, method: 'POST', url: '/v1/x?a=1', timestamp: T, nonce: N, body: sent };
  const cases: Array<[string, string, RegExp]> = [
    [
      'signer re-serialized with \\u escapes',
      `POST\n/v1/x?a=1\n${T}\n${N}\n{"title":"\\u4f60\\u597d","url":"a/b"}\n`,
      /non-ASCII text was escaped/,
    ],
    [
      'signer escaped slashes',
      `POST\n/v1/x?a=1\n${T}\n${N}\n{"title":"你好","url":"a\\/b"}\n`,
      /"\/" was escaped as \\\//,
    ],
    [
      'signer pretty-printed',
      `POST\n/v1/x?a=1\n${T}\n${N}\n${JSON.stringify(JSON.parse(sent), null, 2)}\n`,
      /pretty-printed/,
    ],
    ['signer added a trailing LF', `POST\n/v1/x?a=1\n${T}\n${N}\n${sent}\n\n`, /gained a trailing LF/],
    ['signer left out the query', `POST\n/v1/x\n${T}\n${N}\n${sent}\n`, /left the query string out/],
    ['signer used literal \\n', `POST\\n/v1/x?a=1\\n${T}\\n${N}\\n${sent}\\n`, /two characters \\n/],
    ['signer used lower-case method', `post\n/v1/x?a=1\n${T}\n${N}\n${sent}\n`, /lower case/],
    ['signer dropped the last LF', `POST\n/v1/x?a=1\n${T}\n${N}\n${sent}`, /left out the LF after the body/],
    ['signer used CRLF', `POST\r\n/v1/x?a=1\r\n${T}\r\n${N}\r\n${sent}\r\n`, /CRLF/],
    ['signer signed an empty body', `POST\n/v1/x?a=1\n${T}\n${N}\n\n`, /signed an empty body/],
  ];
  for (const [name, signedText, cause] of cases) {
    it(name, () => expect(diagnoseRequest({ ...request, signature: signRaw(signedText) })).toMatch(cause));
  }
  it('a sorted-key signer', () => {
    const body = '{"b":1,"a":2}';
    const signature = signRaw(`POST\n/v1/x?a=1\n${T}\n${N}\n{"a":2,"b":1}\n`);
    expect(diagnoseRequest({ ...request, body, signature })).toMatch(/keys were reordered/);
  });
  it('a trailing LF lost on the way', () => {
    const signature = signRaw(`POST\n/v1/x?a=1\n${T}\n${N}\n${sent}\n\n`);
    expect(diagnoseRequest({ ...request, body: sent + '\n', signature })).toBeUndefined();
    expect(diagnoseRequest({ ...request, body: sent, signature })).toMatch(/gained a trailing LF/);
  });
  it('gives undefined when the key is the cause', () => {
    const signature = sign('sha256', Buffer.from(`POST\n/v1/x?a=1\n${T}\n${N}\n${sent}\n`), other.privateKey).toString(
      'base64',
    );
    expect(diagnoseRequest({ ...request, signature })).toBeUndefined();
  });
});

it('diagnoseResponse names a re-serialized body', () => {
  const raw = '{"b":"é",  "a":1}';
  const signature = signRaw(`${T}\n${N}\n${raw}\n`);
  expect(
    diagnoseResponse({ publicKey, timestamp: T, nonce: N, body: JSON.stringify(JSON.parse(raw)), signature }),
  ).toBeUndefined();
  const compactSigned = signRaw(`${T}\n${N}\n{"b":"é","a":1}\n`);
  expect(diagnoseResponse({ publicKey, timestamp: T, nonce: N, body: raw, signature: compactSigned })).toMatch(
    /re-serialized/,
  );
});

describe('runDoctor', () => {
  const pem = privateKey.export({ format: 'pem', type: 'pkcs1' }) as string;
  const spki = publicKey.export({ format: 'pem', type: 'spki' }) as string;
  const statuses = (checks: ReturnType<typeof runDoctor>) => checks.map((c) => `${c.status} ${c.title}`);
  it('passes a good pair, uploaded key and key_version', () => {
    const checks = runDoctor({ privateKey: pem, publicKey: spki, keyVersion: '2' });
    expect(statuses(checks)).toEqual([
      'pass the private key is RSA 2048',
      'pass the key pair signs and verifies (rule 1)',
      'pass the uploaded public key matches the private key (rule 3)',
      'pass key_version is given (rule 4)',
    ]);
  });
  it('fails an uploaded key of another pair and a platform key that is the app key', () => {
    const otherSpki = other.publicKey.export({ format: 'pem', type: 'spki' }) as string;
    const checks = runDoctor({ privateKey: pem, publicKey: otherSpki, platformPublicKey: spki });
    expect(checks.find((c) => c.title.includes('uploaded'))).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^uploaded sha256:[0-9a-f]{64}, private key's sha256:/),
    });
    expect(checks.find((c) => c.title.includes('platform'))).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/your own app key/),
    });
    expect(checks.find((c) => c.title.includes('key_version'))?.status).toBe('warn');
  });
  it('fails a 1024-bit private key and stops', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(runDoctor({ privateKey: small })).toEqual([
      { status: 'fail', title: 'the private key is RSA 2048', detail: expect.stringMatching(/1024-bit/) },
    ]);
  });
  it('reports body risks', () => {
    const risky = runDoctor({ privateKey: pem, body: '{"b":"\\u4f60",\r\n "a":"x\\/y"}\n' });
    const titles = risky.filter((c) => c.status !== 'pass').map((c) => c.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'the body has no trailing LF',
        'the body has no CRLF',
        'the body is stable (rule 5)',
        'the key order is safe',
      ]),
    );
    expect(risky.find((c) => c.title === 'the body is stable (rule 5)')?.detail).toMatch(
      /\\u escapes.*\\\/ that JSON.stringify writes as \//,
    );
    expect(runDoctor({ privateKey: pem, body: '{"a":1}' }).find((c) => c.title.includes('stable'))?.status).toBe(
      'pass',
    );
    expect(runDoctor({ privateKey: pem, body: '{"a":"中"}' }).map((c) => c.title)).toContain(
      'non-ASCII text is sent as is (rule 7)',
    );
  });
  it('checks a sent header against the request and names the slip', () => {
    const s = signRequest({ privateKey, appid: 'wx1', keyVersion: '2', method: 'GET', url: '/v1/x?a=1' });
    const ok = runDoctor({
      privateKey: pem,
      keyVersion: '2',
      method: 'GET',
      url: '/v1/x?a=1',
      authorization: s.authorization,
    });
    expect(ok.find((c) => c.title.startsWith('the string to sign'))).toMatchObject({
      status: 'pass',
      title: 'the string to sign matches the request (rule 6)',
    });
    expect(ok.at(-1)).toMatchObject({ status: 'pass', title: "the header's timestamp is inside the one-hour window" });
    const noQuery = signRequest({ privateKey, appid: 'wx1', keyVersion: '2', method: 'GET', url: '/v1/x' });
    const bad = runDoctor({
      privateKey: pem,
      keyVersion: '3',
      method: 'GET',
      url: '/v1/x?a=1',
      authorization: noQuery.authorization,
    });
    expect(bad.find((c) => c.title.includes('names this key_version'))?.status).toBe('fail');
    expect(bad.find((c) => c.title.startsWith('the string to sign'))).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/query string/),
    });
  });
});
