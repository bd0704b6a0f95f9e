/**
 * A function that calls `process.exit(3)` under the built `cloudfn dev` (issue 49, item 5):
 * dev logs the function and the code, starts the server again on the same port, and the next
 * request answers, alone and in a session of two services (where the other keeps serving). A
 * function whose module ends the process as it loads is not started in a loop: the service
 * waits, says so, and starts again when its file changes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConsoleMeta } from '../../src/dev/console/protocol.js';
import { HAS_CHROMIUM, launchChromium } from '../testing/browser.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { tempProject } from '../testing/project.js';
import { until } from '../testing/until.js';

const CLI = `${REPO}/dist/src/cli/index.js`;
const BOOM = `export default async function boom() {\n  process.exit(3);\n}\n`;
const HELLO = `let calls = 0;\nexport default () => ({ calls: ++calls, pid: process.pid });\n`;

const project = tempProject({
  'one/functions/boom.ts': BOOM,
  'one/functions/hello.ts': HELLO,
  'a/cloudfn.config.json': '{ "serviceId": "a" }',
  'a/functions/boom.ts': BOOM,
  'a/functions/hello.ts': HELLO,
  'b/cloudfn.config.json': '{ "serviceId": "b" }',
  'b/functions/hello.ts': HELLO,
});
const running: ChildProcess[] = [];
afterAll(async () => {
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  project.remove();
});

/** `cloudfn dev <folders>` as a user types it; its output read as it comes. */
function dev(folders: string[]): { child: ChildProcess; output: () => string } {
  ensureDist();
  const child = spawn(process.execPath, [CLI, 'dev', ...folders, '--port', '0', '--no-typecheck'], {
    cwd: project.root,
    env: { ...process.env, NO_COLOR: '1', PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { child, output: () => text };
}

/** The answer of GET `url`, or undefined while nothing listens there. */
const answer = async (url: string): Promise<{ calls: number; pid: number } | undefined> => {
  try {
    const res = await fetch(url);
    return res.ok ? ((await res.json()) as { calls: number; pid: number }) : undefined;
  } catch {
    return undefined;
  }
};

/** Calls boom (its connection is cut), then polls hello; resolves with hello's answer and the ms taken. */
async function boomThenHello(base: string, output: () => string) {
  await expect(fetch(`${base}/boom`)).rejects.toThrow();
  const since = Date.now();
  const next = await until(
    () => answer(`${base}/hello`),
    30_000,
    () => `hello to answer again:\n${output()}`,
  );
  return { next, ms: Date.now() - since };
}

describe('a function that calls process.exit(3) under cloudfn dev', { timeout: 120_000 }, () => {
  it('alone: dev names the function and the code, and serves again on the same port', async () => {
    const { output } = dev(['one']);
    const base = await until(
      () => /dev server on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1],
      60_000,
      () => `dev to listen:\n${output()}`,
    );
    const first = (await answer(`${base}/hello`))!;
    const { next, ms } = await boomThenHello(base, output);
    console.log(`one folder: process.exit(3) -> hello answers again in ${ms} ms`);
    // A new process: the module state starts again, as on a real restart.
    expect(next.pid).not.toBe(first.pid);
    expect(next.calls).toBe(1);
    expect(output()).toMatch(
      /boom error function boom \(functions\/boom\.ts:2:\d+\) ended the dev server's process with exit code 3/,
    );
    expect(output()).toContain('dev server stopped (exit code 3); starting it again now');
    // The new process logs why it started once it serves: its line may reach the pipe after the
    // answer that proved it serves, so it is waited for, not read at once.
    await until(
      () => /warn +restarted: function boom \(functions\/boom\.ts:2:\d+\) ended/.test(output()) || undefined,
      10_000,
      () => `the restarted line:\n${output()}`,
    );
    // The console says so: its meta, and the page's header.
    const meta = (await (await fetch(`${base}/_cloudfn/api/functions`)).json()) as ConsoleMeta;
    expect(meta.restarted?.reason).toMatch(/^function boom \(functions\/boom\.ts:2:\d+\) ended .* exit code 3$/);
    if (HAS_CHROMIUM) {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${base}/_cloudfn/`);
        await page.waitForSelector('#restarted:not([hidden])', { timeout: 20_000 });
        expect(await page.textContent('#restarted')).toMatch(/^restarted at .*: function boom \(functions\/boom\.ts/);
      } finally {
        await browser.close();
      }
    }
    // It keeps being started again (the second time after a wait) and serves each time.
    const again = await boomThenHello(base, output);
    expect(again.next.pid).not.toBe(next.pid);
    expect(output()).toContain('dev server stopped (exit code 3); starting it again in 500 ms');
  });

  it('in a session: the service is started again, the other one serves on, and a module that exits waits for a change', async () => {
    const { output } = dev(['a', 'b']);
    await until(
      () => ((output().match(/dev server on /g) ?? []).length === 2 ? true : undefined),
      90_000,
      () => `both services to listen:\n${output()}`,
    );
    const urls = Object.fromEntries(
      [...output().matchAll(/^ {2}(\S+)\s+(http:\/\/\S+)\s+console/gm)].map((m) => [m[1]!, m[2]!]),
    );
    const b = (await answer(`${urls['b']}/hello`))!;
    const { ms } = await boomThenHello(urls['a']!, output);
    console.log(`session: process.exit(3) -> a's hello answers again in ${ms} ms`);
    expect(output()).toMatch(/a │ boom error function boom \(functions\/boom\.ts:2:\d+\) ended .* exit code 3/);
    expect(output()).toContain('a │ stopped (exit code 3); the other services keep running; starting it again now');
    expect((await answer(`${urls['b']}/hello`))!.pid).toBe(b.pid);

    // A module that exits as it loads: the reload ends the process, and so does the restart's load.
    project.write('a/functions/boom.ts', 'process.exit(4);\nexport default () => 1;\n');
    await until(
      () => /a │ stopped \(exit code 4\).*; it starts again when a file under .*a changes/.test(output()) || undefined,
      60_000,
      () => `a to wait for a change:\n${output()}`,
    );
    expect(await answer(`${urls['a']}/hello`)).toBeUndefined();
    project.write('a/functions/boom.ts', BOOM);
    await until(
      () => answer(`${urls['a']}/hello`),
      60_000,
      () => `a to serve after the fix:\n${output()}`,
    );
    expect(output()).toContain('a │ files changed: starting it again');
  });
});
