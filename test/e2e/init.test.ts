/**
 * `cloudfn init` as users run it: the built CLI creates a project from each template, cloudfn
 * is installed from this checkout (`npm pack`, then `npm install <tgz>`; vitest, typescript and
 * @types/node come from the registry, preferring npm's cache), and the project's own tests and
 * type check pass. The three templates run in parallel.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const run = promisify(execFile);
const CLI = join(REPO, 'dist/src/cli/index.js');
const TEMPLATES = ['starter', 'media', 'callback'];

/** The environment of a user's shell: nothing of the vitest running this file. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(VITEST|__VITEST|NODE_ENV$|TEST$|CLOUDFN_)/.test(key)) env[key] = value;
  return { ...env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
}

let work: string;
let tarball: string;

beforeAll(async () => {
  ensureDist();
  work = mkdtempSync(join(tmpdir(), 'cloudfn-init-'));
  // dist/ is built above; --ignore-scripts keeps npm pack from running `prepare` again.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: REPO, env: userEnv() });
  tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))!);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cloudfn init', () => {
  for (const template of TEMPLATES) {
    it.concurrent(`creates a ${template} project whose own tests and type check pass with cloudfn from npm pack`, async ({ expect }) => {
      const dir = join(work, `${template}-app`);
      const created = await run(process.execPath, [CLI, 'init', dir, '--template', template], { env: userEnv() });
      expect(created.stdout).toContain(`Created ${template}-app in`);
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
      expect(pkg.name).toBe(`${template}-app`);
      expect(pkg.dependencies.cloudfn).toBe('^0.1.0');
      expect(readFileSync(join(dir, 'deploy/knative-service.yaml'), 'utf8')).toContain(`name: ${template}-app`);
      expect(readdirSync(dir)).toContain('.gitignore');

      await run('npm', ['install', tarball, '--prefer-offline'], { cwd: dir, env: userEnv(), timeout: 120_000 });
      const tests = await run('npx', ['vitest', 'run', '--reporter=dot'], { cwd: dir, env: userEnv(), timeout: 120_000 }).catch((error: { stdout: string; stderr: string }) => error);
      expect(tests.stdout + tests.stderr).toMatch(/Tests\s+.*\d+ passed/);
      expect(tests.stdout + tests.stderr).not.toMatch(/failed/);
      const types = await run('npx', ['tsc', '--noEmit'], { cwd: dir, env: userEnv(), timeout: 120_000 }).catch((error: { stdout: string; stderr: string }) => error);
      expect(types.stdout).toBe('');
    }, 120_000);
  }

  it('refuses a folder that is not empty, and an unknown template, in one line', () => {
    const dir = join(work, 'taken');
    const first = spawnSync(process.execPath, [CLI, 'init', dir], { encoding: 'utf8', env: userEnv() });
    expect(first.status).toBe(0);
    const again = spawnSync(process.execPath, [CLI, 'init', dir], { encoding: 'utf8', env: userEnv() });
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(`cloudfn: ${dir}: exists and is not empty; choose a new folder name (cloudfn init never overwrites files)\n`);
    const unknown = spawnSync(process.execPath, [CLI, 'init', join(work, 'x'), '--template', 'blog'], { encoding: 'utf8', env: userEnv() });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('cloudfn: --template: there is no template "blog"; choose one of callback, media, starter\n');
  });
});
