/**
 * `checkBundles`, what `cloudfn build --check` runs over a build's bundles: every bundle checked,
 * its row in the order given, a few at a time (a build with `--per-function` has one bundle per
 * function, and 300 processes started at once would starve each other), and the time of all.
 * The bundles here are small servers that speak like one (the start-up line with the url, the
 * health path, exit 0 on SIGTERM) and log when they start and stop.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBundles } from '../../src/build/check-bundles.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudfn-check-bundles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle that serves, logging `+name` at start and `-name` as it stops, into `log`. */
function server(name: string, log: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
appendFileSync(${JSON.stringify(log)}, '+${name}\\n');
const server = createServer((req, res) => res.writeHead(200).end('{"status":"ok"}'));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));
process.on('SIGTERM', () => { appendFileSync(${JSON.stringify(log)}, '-${name}\\n'); server.close(() => process.exit(0)); });
`,
  );
  return file;
}

/** The most servers the log shows running at once. */
function mostAtOnce(log: string): number {
  let running = 0;
  let most = 0;
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    running += line.startsWith('+') ? 1 : -1;
    most = Math.max(most, running);
  }
  return most;
}

describe('checkBundles', () => {
  it('checks every bundle, in order, at most `concurrency` at a time, and times them all', async () => {
    const log = join(dir, 'two.log');
    const files = ['a', 'b', 'c', 'd', 'e'].map((name) => server(name, log));
    const { checks, ms } = await checkBundles(
      files.map((file) => ({ file })),
      { concurrency: 2 },
    );
    expect(checks.map((c) => [c.file, c.ok])).toEqual(files.map((file) => [file, true]));
    expect(mostAtOnce(log)).toBeLessThanOrEqual(2);
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toHaveLength(10);
    expect(ms).toBeGreaterThanOrEqual(Math.max(...checks.map((c) => c.ms)));
  }, 60_000);

  it('runs one at a time when asked, and a failing bundle fails its own row only', async () => {
    const log = join(dir, 'one.log');
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, "throw new Error('missing DATABASE_URL');\n");
    const files = [server('f', log), broken, server('g', log)];
    const { checks } = await checkBundles(
      files.map((file) => ({ file })),
      { concurrency: 1 },
    );
    expect(checks.map((c) => c.ok)).toEqual([true, false, true]);
    expect(checks[1]!.problem).toBe('exited (code 1) before serving: Error: missing DATABASE_URL');
    expect(mostAtOnce(log)).toBe(1);
  }, 60_000);
});
