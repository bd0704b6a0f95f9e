/**
 * Callbacks against the emulator, end to end, from a fresh `cloudfn init` project (made in
 * process; the servers are the real CLI, since the starter's functions import cloudfn as a
 * package): `cloudfn dev --platform` with a callback URL, then the starter README's path, `cloudfn
 * platform --callback-url` (the real CLI) with its printed lines copied into `.env`, on the same
 * data folder the dev run registered its app key in. Both run /media-tour and receive the signed
 * upload and transcode callbacks in a function of the project.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../../src/init/scaffold.js';
import { freePort } from '../testing/free-port.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const work = mkdtempSync(join(tmpdir(), 'cloudfn-callbacks-'));
const root = join(work, 'app');
const dataDir = join(root, '.cloudfn', 'platform');

/** A function of the project that verifies each callback and logs its event. */
const NOTIFY = `import { readFileSync } from 'node:fs';
import type { Handler } from 'cloudfn';
import { verifyServiceCallback } from 'cloudfn/sign';

const notify: Handler<{ event?: string }> = async (params, service) => {
  const publicKey = readFileSync(process.env.CLOUDFN_MEDIA_PLATFORM_PUBLIC_KEY!, 'utf8');
  await verifyServiceCallback(service, { publicKey });
  service.info({ callback: params.event, verified: true });
  return { ok: true };
};
export default notify;
`;

beforeAll(() => {
  initProject(root, { template: 'starter', isPublished: () => true });
  writeFileSync(join(root, 'functions/notify.ts'), NOTIFY);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The real CLI as a child process, its stdout and stderr collected. */
function runCli(args: string[]): { output: () => string; stop: () => Promise<unknown> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    // A command that exited (a refused flag) shows it at once, not after a wait's deadline.
    output: () => (child.exitCode === null ? output : `${output}\n[exited ${child.exitCode}]`),
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function until<T>(check: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (/\[exited -?\d+\]/.test(what())) throw new Error(`the command exited: ${what()}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The events the notify function verified, from the dev server's pretty lines. */
const callbacks = (output: string): string[] =>
  [...output.matchAll(/notify\s+info\s+callback=([\w.]+) verified=true/g)].map((m) => m[1]!);

/** Waits for the dev server, runs /media-tour, and waits for both callbacks. */
async function tourWithCallbacks(dev: { output: () => string }): Promise<void> {
  const url = await until(
    () => /dev server on (http:\/\/[\d.:]+)/.exec(dev.output())?.[1],
    60_000,
    () => `the dev server (got ${dev.output()})`,
  );
  const tour = await fetch(`${url}/media-tour`);
  expect(tour.status, await tour.clone().text()).toBe(200);
  await until(
    () => (callbacks(dev.output()).includes('transcode.finished') ? true : undefined),
    60_000,
    () => `the transcode callback (got ${dev.output()})`,
  );
  expect(callbacks(dev.output())).toContain('upload.finished');
}

describe('callbacks against the emulator', () => {
  it('cloudfn dev --platform --platform-callback-url delivers signed callbacks to a function', async () => {
    ensureDist();
    const port = await freePort();
    const dev = runCli([
      'dev',
      root,
      '--port',
      String(port),
      '--platform',
      '--platform-port',
      '0',
      '--platform-callback-url',
      `http://127.0.0.1:${port}/notify`,
      '--no-typecheck',
    ]);
    try {
      await tourWithCallbacks(dev);
    } finally {
      await dev.stop();
    }
  }, 150_000);

  it('cloudfn platform --callback-url prints lines that, copied into .env, keep /media-tour working', async () => {
    ensureDist();
    const port = await freePort();
    // The data folder the run above used: its dev app key is registered, so calls must be signed.
    const platform = runCli([
      'platform',
      '--port',
      '0',
      '--data',
      dataDir,
      '--callback-url',
      `http://127.0.0.1:${port}/notify`,
    ]);
    let dev: ReturnType<typeof runCli> | undefined;
    try {
      const printed = await until(
        () => (/CLOUDFN_PLATFORM_SAMPLE_URL=\S+\n/.test(platform.output()) ? platform.output() : undefined),
        30_000,
        () => `the printed lines (got ${platform.output()})`,
      );
      const lines = printed.split('\n').flatMap((line) => /^\s+(CLOUDFN_[A-Z_]+=\S+)$/.exec(line)?.[1] ?? []);
      const names = lines.map((line) => line.split('=')[0]);
      expect(names).toEqual(
        expect.arrayContaining(['CLOUDFN_MEDIA_APPID', 'CLOUDFN_MEDIA_PRIVATE_KEY', 'CLOUDFN_MEDIA_KEY_VERSION']),
      );
      // As the starter's README says: copy the printed lines into .env, then run the dev server.
      writeFileSync(join(root, '.env'), lines.join('\n') + '\n');
      dev = runCli(['dev', root, '--port', String(port), '--no-typecheck']);
      await tourWithCallbacks(dev);
    } finally {
      await dev?.stop();
      await platform.stop();
    }
  }, 150_000);
});
