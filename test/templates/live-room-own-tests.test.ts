/**
 * The live-room template's own tests, run with this checkout as their `cloudfn` (issue 49,
 * defect 8): its game test answers the task calls with `startLiveRooms`, the simulator's rules
 * (an appid is required, as `cloudfn dev` requires it), not a fake task API of its own that
 * checks nothing; and its live_data_callback reports the sessions the gateway could not reach
 * (`failed_session_id_list`) instead of `pushed: true` whatever happened. The template is copied
 * to a temporary folder whose node_modules links this checkout's packages, and its tests run
 * there with vitest, as `npm test` runs them in a project made by `cloudfn init`.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDist, REPO } from '../testing/ensure-dist.js';

const TEMPLATE = join(REPO, 'templates', 'live-room');
const project = mkdtempSync(join(tmpdir(), 'cloudfn-live-room-tests-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

beforeAll(() => {
  ensureDist();
  cpSync(TEMPLATE, project, { recursive: true, filter: (from) => !from.includes('node_modules') });
  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name === 'cloudfn') continue;
    symlinkSync(join(REPO, 'node_modules', name), join(modules, name));
  }
  symlinkSync(REPO, join(modules, 'cloudfn'));
}, 120_000);

describe("the live-room template's own tests", () => {
  it('answer the task calls with startLiveRooms, not a fake task API', () => {
    const game = readFileSync(join(TEMPLATE, 'test', 'game.test.ts'), 'utf8');
    expect(game).toContain('startLiveRooms');
    expect(game).not.toMatch(/createServer|CLOUDFN_LIVE_URL/);
  });

  it('pass against this cloudfn, the failed push reported among them', () => {
    const run = spawnSync(
      process.execPath,
      [join(REPO, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose'],
      {
        cwd: project,
        encoding: 'utf8',
        timeout: 240_000,
        // The user's shell: nothing of the vitest running this file.
        env: Object.fromEntries(
          Object.entries(process.env).filter(([key]) => !/^(VITEST|__VITEST|NODE_ENV$|TEST$|CLOUDFN_)/.test(key)),
        ),
      },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    for (const name of [
      "starts the room's data tasks, and makes the caller the room's anchor",
      'reports the tasks the platform refused: a call without the app',
      "reports the anchor's push as failed when its game client is not connected",
    ])
      expect(output).toContain(name);
  }, 300_000);
});
