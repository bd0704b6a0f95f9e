/**
 * `cloudfn dev`, `cloudfn platform`, and `cloudfn start` run by npm do not outlive what started
 * them: killing the parent (an `npm run dev`, an `npx cloudfn start`) by its PID stops them and
 * frees the port, and SIGHUP stops them like SIGTERM.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../dev/project.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
// False once the process has exited; a zombie (an orphan reaped late) counts as gone.
import { alive } from '../../src/platform/components/server-process.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const work = mkdtempSync(join(tmpdir(), 'cloudfn-hygiene-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Like `npm run dev`: a parent process that starts the command and waits; its output goes to a file. */
function startUnderParent(
  name: string,
  args: string[],
  env: Record<string, string> = {},
): { parent: ReturnType<typeof spawn>; log: string } {
  const log = join(work, `${name}.log`);
  const script = `
    const { spawn } = require('node:child_process');
    const fd = require('node:fs').openSync(${JSON.stringify(log)}, 'a');
    const child = spawn(process.execPath, ${JSON.stringify([CLI, ...args])}, { stdio: ['ignore', fd, fd] });
    require('node:fs').writeSync(fd, 'child pid ' + child.pid + '\\n');
    setInterval(() => {}, 1000);
  `;
  openSync(log, 'w');
  return {
    parent: spawn(process.execPath, ['-e', script], { stdio: 'ignore', env: { ...process.env, ...env } }),
    log,
  };
}

describe('process hygiene', () => {
  it.each([
    ['dev', ['dev', FIXTURE, '--port', '0', '--no-typecheck'], /dev server on http:\/\/127\.0\.0\.1:(\d+)/],
    [
      'platform',
      ['platform', '--port', '0', '--data', join(work, 'platform-data'), '--no-ffmpeg'],
      /cloudfn platform listening on http:\/\/127\.0\.0\.1:(\d+)/,
    ],
    [
      'start',
      ['start', FIXTURE, '--port', '0', '--host', '127.0.0.1'],
      /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      // What npm sets in the environment of what `npx cloudfn start` runs.
      { npm_command: 'exec' },
    ],
    [
      'start --workers',
      ['start', FIXTURE, '--port', '0', '--host', '127.0.0.1', '--workers', '2'],
      /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      { npm_command: 'start' },
    ],
  ])(
    '%s exits and frees its port when its parent is killed by PID',
    async (name, args, listening, env?: Record<string, string>) => {
      ensureDist();
      const { parent, log } = startUnderParent(name, args as string[], env);
      const port = Number(
        await until(() => listening.exec(readFileSync(log, 'utf8'))?.[1], 30_000, `${name} to listen`),
      );
      const child = Number(/child pid (\d+)/.exec(readFileSync(log, 'utf8'))![1]);
      expect(await portOpen(port)).toBe(true);
      const killed = Date.now();
      parent.kill('SIGKILL');
      try {
        await until(async () => ((await portOpen(port)) ? undefined : true), 20_000, 'the port to be freed');
        await until(() => (alive(child) ? undefined : true), 20_000, 'the child to exit');
      } catch (error) {
        // What the command printed says which step it stopped at.
        throw new Error(`${(error as Error).message}; the command's output:\n${readFileSync(log, 'utf8')}`);
      }
      console.log(`${name}: parent killed -> port freed and child gone in ${Date.now() - killed} ms`);
      // No balancer sends traffic to a server whose npm parent is gone: no lame-duck period
      // (it answered 503 on health for 5 s per worker, which made this test slow and flaky).
      const output = readFileSync(log, 'utf8');
      expect(output).not.toContain('lame duck');
      if (name.startsWith('start') || name === 'platform') expect(output).toContain('the parent process exited');
    },
    75_000,
  );

  it('dev stops on SIGHUP as on SIGTERM, exit code 0, port freed', async () => {
    ensureDist();
    const child = spawn(process.execPath, [CLI, 'dev', FIXTURE, '--port', '0', '--no-typecheck'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const port = Number(
      await until(() => /dev server on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1], 15_000, 'dev to listen'),
    );
    child.kill('SIGHUP');
    expect(await exited).toBe(0);
    expect(out).toContain('SIGHUP received: stopping the dev server');
    expect(await portOpen(port)).toBe(false);
  }, 30_000);
});
