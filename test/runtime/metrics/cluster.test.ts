/**
 * `cloudfn start --workers 2 --metrics` with a scheduled function, the built CLI on a real
 * port: the metrics any worker answers are the sum over both workers, and each timer firing
 * is fired by one worker only (the primary grants it).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../../testing/ensure-dist.js';
import { tempProject } from '../../testing/project.js';
import { until } from '../../testing/until.js';
import { pidOf, spawnServer } from '../../build/spawn-server.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const project = tempProject({
  'functions/pid.ts': `export default async () => ({ pid: process.pid });`,
  'functions/tick.ts': `export const config = { schedule: '* * * * * *' };
export default async (params: { scheduledTime: string }) => ({ at: params.scheduledTime });`,
});

beforeAll(() => ensureDist(), 120_000);
afterAll(() => project.remove());

describe('cloudfn start --workers 2 --metrics', () => {
  it('sums the metrics over the workers and fires each timer once', async () => {
    const started = Date.now();
    const server = await spawnServer([CLI, 'start', project.root, '--workers', '2', '--metrics'], {
      cwd: project.root,
    });
    try {
      await until(
        () => (server.stdout().split('"msg":"listening on').length >= 3 ? true : undefined),
        20_000,
        () => server.stdout(),
      );
      const pids = new Set<number>();
      for (let i = 0; i < 10; i++) pids.add(await pidOf(`${server.url}/pid`));
      expect(pids.size).toBe(2);
      // Whichever worker answers, it reports the 10 requests of both.
      for (let i = 0; i < 4; i++) {
        const text = await (await fetch(`${server.url}/_cloudfn/metrics`, { headers: { connection: 'close' } })).text();
        expect(text).toMatch(/^cloudfn_requests_total\{function="pid",status="200"\} 10$/m);
      }
      // Wait for a few firings (each due second is fired by one worker), however slow the machine.
      const firings = (): { trigger: string; logid: string }[] =>
        server
          .stdout()
          .split('\n')
          .filter((line) => line.includes('"function":"tick"') && line.includes('"status":200'))
          .map((line) => JSON.parse(line) as { trigger: string; logid: string });
      await until(() => (firings().length >= 2 ? true : undefined), 20_000, 'two firings of tick');
      const due = firings();
      expect(due.length).toBeGreaterThanOrEqual(2);
      // Once a second since start: two workers without the primary's lock would fire twice as often.
      expect(due.length).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
      expect(due.every((line) => line.trigger === 'timer')).toBe(true);
      const text = await (await fetch(`${server.url}/_cloudfn/metrics`)).text();
      const fired = Number(/^cloudfn_requests_total\{function="tick",status="200"\} (\d+)$/m.exec(text)?.[1]);
      // Two workers without a lock would fire every second twice.
      expect(fired).toBeGreaterThanOrEqual(due.length);
      expect(fired).toBeLessThanOrEqual(due.length + 1);
    } finally {
      await server.stop('SIGKILL');
    }
  }, 90_000);
});
