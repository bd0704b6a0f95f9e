/**
 * The real CLI (`node dist/src/cli/index.js`): keys, sign, verify, doctor. `npm test` builds
 * dist/ first; run alone, this file builds it when it is missing or older than the sources.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRequest } from '../../src/sign/index.js';
import { opensslKeys, refusedKeys, type OpensslKeys } from './openssl.js';

const root = new URL('../..', import.meta.url).pathname;
const cli = join(root, 'dist/src/cli/index.js');

function cloudfn(args: string[], cwd = root) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let keys: OpensslKeys;
beforeAll(() => {
  const sources = [
    'src/sign/index.ts',
    'src/sign/doctor.ts',
    'src/cli/sign.ts',
    'src/cli/verify.ts',
    'src/cli/keys.ts',
    'src/cli/doctor.ts',
    'src/cli/index.ts',
  ];
  const newest = Math.max(...sources.map((f) => statSync(join(root, f)).mtimeMs));
  if (
    !existsSync(cli) ||
    statSync(join(root, 'dist/src/cli/sign.js'), { throwIfNoEntry: false }) === undefined ||
    statSync(cli).mtimeMs < newest
  ) {
    // Type errors elsewhere in the tree must not stop the emit this test needs.
    spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'ignore' });
  }
  keys = opensslKeys();
}, 120_000);
afterAll(() => keys.cleanup());

const T = '1700000000';
const N = 'cli-nonce-1';

describe('cloudfn keys', () => {
  it('generate writes a PKCS8 private key (0600) and an SPKI public key with their fingerprint', () => {
    const dir = join(keys.dir, 'gen');
    const out = cloudfn(['keys', 'generate', '--out-dir', dir]);
    expect(out.code).toBe(0);
    const privatePem = readFileSync(join(dir, 'app_private_key.pem'), 'utf8');
    expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(readFileSync(join(dir, 'app_public_key.pem'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(statSync(join(dir, 'app_private_key.pem')).mode & 0o777).toBe(0o600);
    const der = execFileSync('/usr/bin/openssl', [
      'pkey',
      '-pubin',
      '-in',
      join(dir, 'app_public_key.pem'),
      '-outform',
      'DER',
    ]);
    const fingerprint = execFileSync('/usr/bin/openssl', ['dgst', '-sha256', '-r'], { input: der })
      .toString()
      .split(' ')[0];
    expect(out.stdout).toContain(`fingerprint: sha256:${fingerprint}`);
    const again = cloudfn(['keys', 'generate', '--out-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/app_private_key.pem exists; keep it, choose another --out-dir, or pass --force/);
    expect(cloudfn(['keys', 'generate', '--out-dir', join(keys.dir, 'gen1'), '--pkcs1']).code).toBe(0);
    expect(readFileSync(join(keys.dir, 'gen1', 'app_private_key.pem'), 'utf8')).toMatch(
      /^-----BEGIN RSA PRIVATE KEY-----/,
    );
  });
  it('convert gives what openssl gives', () => {
    expect(cloudfn(['keys', 'convert', '--in', keys.path.pkcs8, '--to', 'pkcs1']).stdout).toBe(keys.pkcs1);
    expect(cloudfn(['keys', 'convert', '--in', keys.path.pkcs1, '--to', 'pkcs8']).stdout).toBe(keys.pkcs8);
    expect(cloudfn(['keys', 'convert', '--in', keys.path.pkcs1, '--to', 'spki']).stdout).toBe(keys.spki);
    const bad = cloudfn(['keys', 'convert', '--in', keys.path.pkcs1, '--to', 'jwk']);
    expect(bad).toMatchObject({ code: 1, stderr: 'cloudfn: --to must be pkcs1, pkcs8 or spki, got "jwk"\n' });
  });
  it('inspect says what a key is and what is wrong', () => {
    const good = cloudfn(['keys', 'inspect', keys.path.pkcs1]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('encoding:    pkcs1 (pem)');
    expect(good.stdout).toContain('type:        rsa, 2048 bits');
    expect(good.stdout).toContain(`fingerprint: sha256:${keys.fingerprint}`);
    const small = join(keys.dir, 'rsa1024.pem');
    refusedKeys(keys.dir);
    const bad = cloudfn(['keys', 'inspect', small]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('✗ got a 1024-bit RSA key; the scheme needs 2048 bits');
  });
});

describe('cloudfn sign', () => {
  const body = '{"title":"你好 😀"}\n';
  let bodyFile: string;
  beforeAll(() => {
    bodyFile = join(keys.dir, 'body.json');
    writeFileSync(bodyFile, body);
  });
  it('prints the header, byte-identical to openssl, and the string to sign on stderr', () => {
    const golden = keys.sign(`POST\n/v1/videos?page=2\n${T}\n${N}\n${body}\n`);
    for (const key of [keys.path.pkcs1, keys.path.pkcs8]) {
      const out = cloudfn([
        'sign',
        '--private-key',
        key,
        '--appid',
        'wx1',
        '--key-version',
        '3',
        '--method',
        'post',
        '--url',
        '/v1/videos?page=2',
        '--body-file',
        bodyFile,
        '--timestamp',
        T,
        '--nonce',
        N,
        '--show-string',
      ]);
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(
        `Platform-Authorization: SHA256-RSA2048 appid="wx1",nonce_str="${N}",timestamp="${T}",key_version="3",signature="${golden}"\n`,
      );
      expect(out.stderr).toBe(
        `string to sign (⏎ marks each LF):\nPOST⏎\n/v1/videos?page=2⏎\n${T}⏎\n${N}⏎\n{"title":"你好 😀"}⏎\n⏎\n`,
      );
    }
  });
  it('warns about a literal \\n typed in single quotes', () => {
    const out = cloudfn([
      'sign',
      '--private-key',
      keys.path.pkcs1,
      '--appid',
      'wx1',
      '--key-version',
      '1',
      '--method',
      'POST',
      '--url',
      '/x',
      '--body',
      'a\\nb',
    ]);
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/--body holds the two characters \\n/);
  });
  it('refuses missing and conflicting options in one line', () => {
    const missing = cloudfn([
      'sign',
      '--private-key',
      keys.path.pkcs1,
      '--appid',
      'wx1',
      '--method',
      'GET',
      '--url',
      '/',
    ]);
    expect(missing).toMatchObject({ code: 1, stderr: 'cloudfn: --key-version is required, e.g. --key-version 1\n' });
    const both = cloudfn([
      'sign',
      '--private-key',
      keys.path.pkcs1,
      '--appid',
      'a',
      '--key-version',
      '1',
      '--method',
      'GET',
      '--url',
      '/',
      '--body',
      'x',
      '--body-file',
      bodyFile,
    ]);
    expect(both.stderr).toBe('cloudfn: give --body-file or --body, not both\n');
    const publicKey = cloudfn([
      'sign',
      '--private-key',
      keys.path.spki,
      '--appid',
      'a',
      '--key-version',
      '1',
      '--method',
      'GET',
      '--url',
      '/',
    ]);
    expect(publicKey.code).toBe(1);
    expect(publicKey.stderr).toMatch(/^cloudfn: the key cannot be read: got a public key \(PUBLIC KEY\)[^\n]*\n$/);
  });

  describe('--curl sends the signed bytes', () => {
    let server: Server;
    let port: number;
    const received: Array<{ method: string; url: string; auth: string; body: Buffer }> = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({
            method: req.method!,
            url: req.url!,
            auth: String(req.headers['platform-authorization']),
            body: Buffer.concat(chunks),
          });
          res.end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    for (const [name, bodyArgs, expected] of [
      ['a body file ending with LF', () => ['--body-file', bodyFile], () => Buffer.from(body)],
      [
        'a --body with quotes, emoji and a line break',
        () => ['--body', `{"q":"it's 😀\nok"}`],
        () => Buffer.from(`{"q":"it's 😀\nok"}`),
      ],
    ] as const) {
      it(name, async () => {
        const url = `http://127.0.0.1:${port}/v1/videos?page=2&q=%E4%BD%A0`;
        const out = cloudfn(
          [
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
            '/v1/videos?page=2&q=%E4%BD%A0',
            ...bodyArgs(),
            '--curl',
            url,
          ],
          keys.dir,
        );
        expect(out.code).toBe(0);
        expect(out.stdout).toMatch(/^curl -sS -g --path-as-is -X POST '/);
        // Async: the server answering curl lives in this process, so a sync spawn would deadlock.
        await promisify(execFile)('bash', ['-c', out.stdout], { cwd: keys.dir, timeout: 10_000 });
        const got = received.at(-1)!;
        expect(got.body.equals(expected())).toBe(true);
        const verified = await verifyRequest({
          authorization: got.auth,
          method: got.method,
          url: got.url,
          body: got.body,
          publicKeys: { '1': keys.spki },
          nonceStore: false,
        });
        expect(verified.appid).toBe('wx1');
      });
    }
    it('refuses a --curl URL whose path differs from --url', () => {
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
        '/v1/videos?page=2',
        '--curl',
        `http://127.0.0.1:${port}/v1/videos`,
      ]);
      expect(out).toMatchObject({
        code: 1,
        stderr:
          'cloudfn: --curl sends /v1/videos but /v1/videos?page=2 was signed; give the same path and query to --url and --curl\n',
      });
    });
  });
});

describe('cloudfn verify', () => {
  const body = '{"errcode":0,"title":"标题"}';
  it('response mode: valid, then a trailing LF named as the likely cause', () => {
    const signature = keys.sign(`${T}\n${N}\n${body}\n`);
    const args = ['verify', '--public-key', keys.path.spki, '--timestamp', T, '--nonce', N, '--signature', signature];
    expect(cloudfn([...args, '--body', body])).toMatchObject({ code: 0, stdout: 'valid\n' });
    const bad = cloudfn([...args, '--body', body + '\n']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^invalid: SIGN_BAD_SIGNATURE: /);
    expect(bad.stderr).toMatch(/likely cause: the body lost its trailing LF/);
    const other = cloudfn([...args, '--body', '{"errcode":1}']);
    expect(other.stderr).toMatch(/likely cause: none of the usual slips/);
    expect(cloudfn([...args, '--body', body, '--max-age', '60']).stderr).toMatch(/SIGN_STALE_TIMESTAMP/);
  });
  it('request mode: valid, then the query left out named', () => {
    const now = String(Math.floor(Date.now() / 1000));
    const signature = keys.sign(`GET\n/v1/videos\n${now}\n${N}\n\n`);
    const authorization = `SHA256-RSA2048 appid="wx1",nonce_str="${N}",timestamp="${now}",key_version="2",signature="${signature}"`;
    const args = ['verify', '--public-key', keys.path.spki, '--authorization', authorization, '--method', 'GET'];
    expect(cloudfn([...args, '--url', '/v1/videos'])).toMatchObject({
      code: 0,
      stdout: `valid: appid wx1, key_version 2, timestamp ${now}\n`,
    });
    const bad = cloudfn([...args, '--url', '/v1/videos?page=2']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/likely cause: the signer left the query string out of the URL line/);
    const stale = cloudfn([
      'verify',
      '--public-key',
      keys.path.spki,
      '--authorization',
      authorization.replace(now, T),
      '--method',
      'GET',
      '--url',
      '/v1/videos',
    ]);
    expect(stale.stderr).toMatch(/^invalid: SIGN_STALE_TIMESTAMP: the timestamp is \d+ s old/);
  });
});

describe('cloudfn doctor', () => {
  it('passes a matching pair and fails another uploaded key, one line each', () => {
    const good = cloudfn([
      'doctor',
      '--private-key',
      keys.path.pkcs1,
      '--public-key',
      keys.path.spki,
      '--key-version',
      '1',
    ]);
    expect(good.code).toBe(0);
    expect(
      good.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(0, 2)),
    ).toEqual(['✓ ', '✓ ', '✓ ', '✓ ']);
    const otherDir = join(keys.dir, 'other');
    cloudfn(['keys', 'generate', '--out-dir', otherDir]);
    const bad = cloudfn([
      'doctor',
      '--private-key',
      keys.path.pkcs1,
      '--public-key',
      join(otherDir, 'app_public_key.pem'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^✗ the uploaded public key matches the private key \(rule 3\): uploaded sha256:/m);
    expect(bad.stdout).toMatch(/^! key_version is given \(rule 4\)/m);
  });
  it('checks the body', () => {
    const file = join(keys.dir, 'pretty.json');
    writeFileSync(file, '{\n  "a": "\\u4f60"\n}\n');
    const out = cloudfn(['doctor', '--private-key', keys.path.pkcs8, '--body-file', file]);
    expect(out.stdout).toMatch(/^! the body is stable \(rule 5\): re-serializing changes it: it has \\u escapes/m);
    expect(out.stdout).toMatch(/^! the body has no trailing LF/m);
  });
});
