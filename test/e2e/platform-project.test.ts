/**
 * The real CLI on a project in the platform's layout: `cloudfn start` says how to serve root
 * functions, serves them with `--functions-dir .`, trusts the gateway's headers only when told,
 * writes console.log as JSON lines with the logid, and names the WeChat `exports.main` form.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = new URL('../../dist/src/cli/index.js', import.meta.url).pathname;
const fixture = new URL('../fixtures/platform-root/', import.meta.url).pathname;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudfn-platform-cli-'));
  cpSync(fixture, root, { recursive: true });
  rmSync(join(root, 'cloudfn.config.json'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('cloudfn start on a root-layout project', () => {
  it('without functionsDir, says in one line how to set it', () => {
    const result = spawnSync(process.execPath, [cli, 'start', root], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `cloudfn: ${join(root, 'functions')}: there is no functions folder, but get_open_id.ts, start_game.ts sit at the project root, as in the platform's layout; to serve them, set "functionsDir": "." in cloudfn.config.json (or pass --functions-dir .)\n`,
    );
  });

  it('with --functions-dir . and CLOUDFN_TRUST_GATEWAY_HEADERS, answers the caller and logs console.log with the logid', async () => {
    const child = spawn(process.execPath, [cli, 'start', root, '--functions-dir', '.'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CLOUDFN_TRUST_GATEWAY_HEADERS: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up line: ${out}`)), 20_000);
        child.stdout!.on('data', () => {
          const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
          if (match !== null) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const res = await fetch(`${url}/get_open_id`, { headers: { 'x-tt-openid': 'ann', 'x-tt-appid': 'tt9' } });
      expect(await res.json()).toEqual({ openid: 'ann', caller: { openid: 'ann', appid: 'tt9', anonymous: false } });
      const logid = res.headers.get('x-platform-logid');
      await expect
        .poll(() =>
          out
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as Record<string, unknown>)
            .find((line) => line['msg'] === 'get_open_id called'),
        )
        .toMatchObject({ level: 'log', logid, function: 'get_open_id' });
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 30_000);
});

describe('cloudfn dev and cloudfn build on a root-layout project', () => {
  it('dev --functions-dir . answers as the dev user from CLOUDFN_DEV_OPENID', async () => {
    const child = spawn(process.execPath, [cli, 'dev', root, '--functions-dir', '.', '--port', '0', '--no-typecheck'], {
      env: { ...process.env, NO_COLOR: '1', HOST: '127.0.0.1', CLOUDFN_DEV_OPENID: 'cli-ann' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start-up line: ${out}`)), 20_000);
        child.stdout!.on('data', () => {
          const match = /dev server on (http:\/\/\S+) with 2 functions/.exec(out);
          if (match !== null) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      const res = await fetch(`${url}/get_open_id`);
      expect(((await res.json()) as { openid: string }).openid).toBe('cli-ann');
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 30_000);

  it('build --functions-dir . --per-function bundles the root functions', () => {
    const result = spawnSync(
      process.execPath,
      [cli, 'build', root, '--functions-dir', '.', '--no-typecheck', '--outdir', 'cli-dist', '--per-function'],
      { encoding: 'utf8' },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/get_open_id/);
    expect(result.stdout).toMatch(/start_game/);
    expect(result.stdout).not.toMatch(/vite\.config|_helper/);
  }, 60_000);
});

describe('a WeChat cloud function under cloudfn start', () => {
  it('is told the one-line change', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudfn-wechat-'));
    try {
      mkdirSync(join(dir, 'functions'));
      writeFileSync(join(dir, 'functions', 'login.js'), 'exports.main = async (event, context) => ({ event });\n');
      const result = spawnSync(process.execPath, [cli, 'start', dir], {
        encoding: 'utf8',
        env: { ...process.env, PORT: '0' },
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /^cloudfn: functions\/login.js exports main \(event, context\), the form of a WeChat cloud function; .*change the one line exports.main = async \(event, context\) => to module.exports = async \(event, context\) =>/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
