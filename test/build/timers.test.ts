/**
 * Deploys carry their timers: `cloudfn build`, for both targets, writes the timer triggers of
 * `config.schedule` (from the module, or from cloudfn.config's `functions`) into
 * `cloudfn-build.json` and prints them as the list to create on the platform.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timerTriggers } from '../../src/contract/timers.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';

const CLI = join(REPO, 'dist/src/cli/index.js');

describe('the timer triggers of a build', () => {
  let project: TempProject;
  beforeAll(() => {
    ensureDist();
    project = tempProject({
      'functions/settle.js':
        "export const config = { schedule: { cron: '0 */5 * * * *', params: { room: 'all' } }, timeout: 30000 };\nexport default async () => ({ settled: true });\n",
      'functions/sweep.js': 'export default async () => ({ swept: true });\n',
      'functions/hello.js': "export default async () => ({ hello: 'world' });\n",
      'cloudfn.config.json': JSON.stringify({ functions: { sweep: { schedule: '0 0 3 * * *' } } }),
    });
  });
  afterAll(() => project.remove());

  const expected = [
    { function: 'settle', cron: '0 */5 * * * *', params: { room: 'all' }, timeout: 30000 },
    { function: 'sweep', cron: '0 0 3 * * *', params: {}, timeout: 60000 },
  ];

  it.each([
    ['server', [], 'dist'],
    ['function-service', ['--target', 'function-service'], 'dist/function-service'],
  ])(
    '%s: writes them into cloudfn-build.json and prints them',
    (_target, flags, outdir) => {
      const run = spawnSync(process.execPath, [CLI, 'build', ...flags], {
        cwd: project.root,
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(join(project.root, outdir, 'cloudfn-build.json'), 'utf8'));
      expect(manifest.timers).toEqual(expected);
      expect(run.stdout).toContain(`timer triggers to create on the platform (also in ${outdir}/cloudfn-build.json`);
      expect(run.stdout).toContain('  settle  cron "0 */5 * * * *"  params {"room":"all"}  timeout 30000 ms');
      expect(run.stdout).toContain('  sweep  cron "0 0 3 * * *"  params {}  timeout 60000 ms');
    },
    120_000,
  );

  it('cuts a timeout at the 60 s the platform waits for a firing', () => {
    const triggers = timerTriggers([
      { name: 'long', handler: () => 1, config: { schedule: '* * * * *', timeout: 120_000 } },
    ]);
    expect(triggers).toEqual([{ function: 'long', cron: '* * * * *', params: {}, timeout: 60_000 }]);
  });
});
