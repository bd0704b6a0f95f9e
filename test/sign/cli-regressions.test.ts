/**
 * Bugs of the signing commands, each through the built CLI (`node dist/src/cli/index.js`): URLs
 * that need percent-encoding (signed and sent with curl to a real socket), PEM text given to
 * --private-key, a millisecond timestamp in verify's response form, a stale header in doctor,
 * and a body read as latin1 on the way.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { sign } from 'node:crypto';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateKey } from 'node:crypto';
import { formatAuthorization, signRequest, verifyRequest } from '../../src/sign/index.js';
import { opensslKeys, type OpensslKeys } from './openssl.js';

const root = new URL('../..', import.meta.url).pathname;
const cli = join(root, 'dist/src/cli/index.js');

function cloudfn(args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let keys: OpensslKeys;
let server: Server;
let origin: string;
beforeAll(async () => {
  const sources = [
    'src/sign/string-to-sign.ts',
    'src/sign/doctor.ts',
    'src/sign/diagnose.ts',
    'src/cli/args.ts',
    'src/cli/sign.ts',
    'src/cli/verify.ts',
    'src/cli/doctor.ts',
  ];
  const newest = Math.max(...sources.map((f) => statSync(join(root, f)).mtimeMs));
  if (!existsSync(cli) || statSync(join(root, 'dist/src/cli/args.js')).mtimeMs < newest) {
    spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'ignore' });
  }
  keys = opensslKeys();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      verifyRequest({
        authorization: req.headers['platform-authorization'] as string,
        method: req.method!,
        url: req.url!,
        body: Buffer.concat(chunks),
        publicKeys: { '1': keys.spki },
        nonceStore: false,
      }).then(
        () => res.writeHead(200).end(`ok ${req.url}`),
        (error: { code?: string }) => res.writeHead(401).end(String(error.code)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  keys.cleanup();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('cloudfn sign with URLs that need percent-encoding', () => {
  for (const url of ['/v1/x?q=a b', '/v1/京?city=京', "/v1/x?q='it'&r={a}"]) {
    it(`--curl ${url} sends what it signed, and the server accepts it`, async () => {
      const out = cloudfn([
        'sign',
        '--private-key',
        keys.path.pkcs8,
        '--appid',
        'wx1',
        '--key-version',
        '1',
        '--method',
        'POST',
        '--url',
        url,
        '--body',
        '{"t":"你好"}',
        '--curl',
        origin + url,
      ]);
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      // Async: the server answering runs in this process, so a sync exec would deadlock.
      const { stdout } = await promisify(execFile)('/bin/sh', ['-c', out.stdout], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(stdout).toMatch(/^ok \//);
    });
  }
  it('the header alone verifies for a fetch of the typed URL', async () => {
    const out = cloudfn([
      'sign',
      '--private-key',
      keys.path.pkcs8,
      '--appid',
      'wx1',
      '--key-version',
      '1',
      '--method',
      'GET',
      '--url',
      '/v1/x?q=a b',
    ]);
    const header = out.stdout.trim().replace(/^Platform-Authorization: /, '');
    const res = await fetch(origin + '/v1/x?q=a b', { headers: { 'Platform-Authorization': header } });
    expect(await res.text()).toBe('ok /v1/x?q=a%20b');
  });
});

describe('cloudfn verify names a URL signed as typed', () => {
  it('instead of blaming the keys', () => {
    const ts = String(Math.floor(Date.now() / 1000));
    const typed = sign(
      'sha256',
      Buffer.from(`GET\n/v1/x?q=a b&c=京\n${ts}\nn1\n\n`),
      createPrivateKey(keys.pkcs8),
    ).toString('base64');
    const authorization = formatAuthorization({
      appid: 'wx1',
      nonce: 'n1',
      timestamp: ts,
      keyVersion: '1',
      signature: typed,
    });
    const out = cloudfn([
      'verify',
      '--public-key',
      keys.path.spki,
      '--authorization',
      authorization,
      '--method',
      'GET',
      '--url',
      '/v1/x?q=a%20b&c=%E4%BA%AC',
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/likely cause: the signer signed the URL as typed \("\/v1\/x\?q=a b&c=京"\)/);
  });
});

describe('cloudfn sign, verify and doctor take PEM text for a key', () => {
  it('--private-key "<PEM text>" as its own argument', () => {
    const out = cloudfn([
      'sign',
      '--private-key',
      keys.pkcs8,
      '--appid',
      'wx1',
      '--key-version',
      '1',
      '--method',
      'GET',
      '--url',
      '/v1/x',
      '--timestamp',
      '1700000000',
      '--nonce',
      'n1',
    ]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Platform-Authorization: SHA256-RSA2048 /);
    expect(cloudfn(['doctor', '--private-key', keys.pkcs1, '--public-key', keys.spki]).code).toBe(0);
  });
  it('--help says a path, PEM text or --private-key=… all work', () => {
    expect(cloudfn(['sign', '--help']).stdout).toMatch(/a file path, the PEM text itself .*--private-key=…/);
  });
});

describe('cloudfn verify, response form, with a timestamp in milliseconds', () => {
  it('says seconds, not milliseconds, without an absurd bound', () => {
    const ms = '1700000000000';
    const signature = sign('sha256', Buffer.from(`${ms}\nn1\n{}\n`), createPrivateKey(keys.pkcs8)).toString('base64');
    const out = cloudfn([
      'verify',
      '--public-key',
      keys.path.spki,
      '--timestamp',
      ms,
      '--nonce',
      'n1',
      '--signature',
      signature,
      '--body',
      '{}',
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/SIGN_FUTURE_TIMESTAMP: .*send seconds, not milliseconds/);
    expect(out.stderr).not.toMatch(/9007199254740991|Infinity/);
  });
});

describe('cloudfn doctor checks the header timestamp against the clock', () => {
  /** `cloudfn doctor` on a GET /v1/x request sent with `authorization`. */
  const doctor = (authorization: string) =>
    cloudfn([
      'doctor',
      '--private-key',
      keys.path.pkcs8,
      '--key-version',
      '1',
      '--method',
      'GET',
      '--url',
      '/v1/x',
      '--authorization',
      authorization,
    ]);
  it('a two-hour-old header fails with exit 1', () => {
    const old = Math.floor(Date.now() / 1000) - 7200;
    const signed = signRequest({
      privateKey: keys.pkcs8,
      appid: 'wx1',
      keyVersion: '1',
      method: 'GET',
      url: '/v1/x',
      timestamp: old,
    });
    const out = doctor(signed.authorization);
    expect(out.stdout).toMatch(/✗ the header's timestamp is inside the one-hour window: the timestamp is 72\d\d s old/);
    expect(out.code).toBe(1);
  });
  it('a fresh header passes', () => {
    const signed = signRequest({ privateKey: keys.pkcs8, appid: 'wx1', keyVersion: '1', method: 'GET', url: '/v1/x' });
    const out = doctor(signed.authorization);
    expect(out.stdout).toMatch(/✓ the header's timestamp is inside the one-hour window/);
  });
});

describe('cloudfn verify names a body read as latin1', () => {
  it('mojibake of UTF-8 is the likely cause', () => {
    const body = '{"title":"你好"}';
    const signature = sign('sha256', Buffer.from(`1700000000\nn1\n${body}\n`), createPrivateKey(keys.pkcs8)).toString(
      'base64',
    );
    const file = join(keys.dir, 'mojibake.json');
    writeFileSync(file, Buffer.from(body, 'utf8').toString('latin1'), 'utf8');
    const out = cloudfn([
      'verify',
      '--public-key',
      keys.path.spki,
      '--timestamp',
      '1700000000',
      '--nonce',
      'n1',
      '--signature',
      signature,
      '--body-file',
      file,
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/likely cause: the body here is mojibake: UTF-8 that was read as latin1/);
  });
});
