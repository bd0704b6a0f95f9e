/**
 * `--json` of build, keys, verify, doctor and trigger, parsed as a script would: one JSON object
 * on stdout with the documented keys (docs/cli.md), and the exit code of the plain output.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { tempProject } from '../testing/project.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const dir = mkdtempSync(join(tmpdir(), 'cloudfn-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI and parses stdout, which must be exactly one JSON object and a newline. */
function json(args: string[], cwd = dir): { status: number | null; out: Record<string, unknown>; stderr: string } {
  ensureDist();
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd, timeout: 60_000 });
  expect(run.stdout.endsWith('}\n'), run.stdout + run.stderr).toBe(true);
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
  return { status: run.status, out: JSON.parse(run.stdout) as Record<string, unknown>, stderr: run.stderr };
}

const keysDir = join(dir, 'keys');
const privateKey = join(keysDir, 'app_private_key.pem');
const publicKey = join(keysDir, 'app_public_key.pem');

describe('--json', () => {
  it('keys generate, convert and inspect', () => {
    const generated = json(['keys', 'generate', '--out-dir', keysDir, '--json']);
    expect(generated.status).toBe(0);
    expect(generated.out).toEqual({
      privateKey,
      publicKey,
      encoding: 'pkcs8',
      fingerprint: expect.stringMatching(/\S/),
    });
    expect(existsSync(privateKey) && existsSync(publicKey)).toBe(true);

    const converted = json(['keys', 'convert', '--in', privateKey, '--to', 'spki', '--json']);
    expect(converted.out).toEqual({
      encoding: 'spki',
      pem: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----\n/),
      out: null,
    });

    const inspected = json(['keys', 'inspect', privateKey, '--json']);
    expect(inspected.status).toBe(0);
    expect(inspected.out).toEqual({
      ok: true,
      kind: 'private',
      encoding: 'pkcs8',
      format: 'pem',
      type: 'rsa',
      bits: 2048,
      fingerprint: generated.out['fingerprint'],
      problems: [],
      notes: expect.any(Array),
    });
  });

  it('doctor: ok and one row per check', () => {
    const run = json([
      'doctor',
      '--private-key',
      privateKey,
      '--public-key',
      publicKey,
      '--key-version',
      '1',
      '--json',
    ]);
    expect(run.status).toBe(0);
    expect(run.out['ok']).toBe(true);
    const checks = run.out['checks'] as { status: string; title: string; detail: string | null }[];
    expect(checks.length).toBeGreaterThan(1);
    for (const check of checks) {
      expect(Object.keys(check)).toEqual(['status', 'title', 'detail']);
      expect(['pass', 'warn']).toContain(check.status);
    }
  });

  it('verify: a request cloudfn sign signed is valid; a changed body is not, exit 1', () => {
    const signed = spawnSync(
      process.execPath,
      [
        CLI,
        'sign',
        '--private-key',
        privateKey,
        '--appid',
        'tt1',
        '--key-version',
        '3',
        '--method',
        'POST',
        '--url',
        '/api/x',
        '--body',
        '{"a":1}',
      ],
      { encoding: 'utf8' },
    );
    const authorization = signed.stdout.trim().replace(/^Platform-Authorization: /, '');
    const request = [
      'verify',
      '--public-key',
      publicKey,
      '--authorization',
      authorization,
      '--method',
      'POST',
      '--url',
      '/api/x',
    ];
    const valid = json([...request, '--body', '{"a":1}', '--json']);
    expect(valid.status).toBe(0);
    expect(valid.out).toEqual({
      valid: true,
      kind: 'request',
      appid: 'tt1',
      keyVersion: '3',
      timestamp: expect.stringMatching(/^\d+$/),
      code: null,
      message: null,
      likelyCause: null,
    });
    const invalid = json([...request, '--body', '{"a":2}', '--json']);
    expect(invalid.status).toBe(1);
    expect(invalid.out).toMatchObject({ valid: false, kind: 'request', code: 'SIGN_BAD_SIGNATURE' });
    expect(invalid.out['likelyCause']).toEqual(expect.any(String));
    expect(invalid.stderr).toBe('');
  });

  it('build: the bundles, the type check and the checks', () => {
    const project = tempProject({ 'functions/hello.js': 'export default () => ({ hello: 1 });\n' });
    try {
      const run = json(['build', '--json', '--check'], project.root);
      expect(run.status).toBe(0);
      expect(Object.keys(run.out)).toEqual([
        'outdir',
        'ms',
        'typecheck',
        'bundles',
        'warnings',
        'timers',
        'checks',
        'checkMs',
      ]);
      expect(run.out['timers']).toEqual([]);
      expect(run.out['outdir']).toBe(join(project.root, 'dist'));
      expect(run.out['typecheck']).toEqual({ checked: false, note: expect.stringContaining('no tsconfig.json') });
      const bundles = run.out['bundles'] as { name: string; bytes: number }[];
      expect(bundles.map((b) => b.name)).toEqual(['server.mjs']);
      for (const bundle of bundles)
        expect(Object.keys(bundle)).toEqual(['name', 'file', 'bytes', 'gzipBytes', 'lazyBytes', 'ms']);
      const checks = run.out['checks'] as { ok: boolean; problem: string | null }[];
      expect(checks.map((c) => [c.ok, c.problem])).toEqual([[true, null]]);
      // The whole check's time: at least its one bundle's.
      expect(run.out['checkMs']).toBeGreaterThanOrEqual((checks[0] as unknown as { ms: number }).ms);
      const unchecked = json(['build', '--json'], project.root).out;
      expect(unchecked['checks']).toBeNull();
      expect(unchecked['checkMs']).toBeNull();
    } finally {
      project.remove();
    }
  }, 60_000);

  it('trigger: the function, status, logid and body of the answer', async () => {
    const answer = {
      function: 'cleanup',
      status: 200,
      logid: '20261124000000ABCDEF',
      body: '{"removed":3}',
      cut: false,
    };
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.method === 'POST' && req.url === '/_cloudfn/trigger/cleanup' ? answer : {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      ensureDist();
      // Asynchronous, so that this process's server can answer while the CLI waits.
      const run = await promisify(execFile)(process.execPath, [CLI, 'trigger', 'cleanup', '--url', url, '--json'], {
        encoding: 'utf8',
      });
      expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.parse(run.stdout)).toEqual(answer);
    } finally {
      server.close();
    }
  });
});
