/**
 * `cloudfn init` as users run it from a clone: this checkout's version is not on the registry,
 * so the built CLI packs cloudfn into each project's vendor/ and depends on
 * `file:vendor/cloudfn-<version>.tgz`; then `npm install` (vitest, typescript and @types/node
 * from the registry, preferring npm's cache), `npm test`, the type check and `npm run build`
 * pass. The starter is also built the way its Dockerfile builds it: package.json, the lock file
 * and vendor/ alone, `npm ci`, then the sources. The three templates run in parallel.
 */
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const run = promisify(execFile);
const CLI = join(REPO, 'dist/src/cli/index.js');
const TEMPLATES = ['starter', 'media', 'callback', 'live-room'];

/** The environment of a user's shell: nothing of the vitest running this file. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(VITEST|__VITEST|NODE_ENV$|TEST$|CLOUDFN_)/.test(key)) env[key] = value;
  return {
    ...env,
    npm_config_loglevel: 'error',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
  };
}

/** What execFile rejects with: the output so far, and how the command ended. */
interface NpmFailure {
  stdout: string;
  stderr: string;
  code?: number | string;
  signal?: string;
  killed?: boolean;
}

/** How an npm command ended, for a failure message: cut by the timeout, or its exit code and output. */
function outcome(result: { stdout: string; stderr: string } | NpmFailure): string {
  const failure = result as NpmFailure;
  const how = failure.killed ? `cut by the timeout (${failure.signal})` : `exit code ${failure.code ?? 0}`;
  return `${how}; stderr: ${failure.stderr.slice(-2000)}; stdout: ${failure.stdout.slice(-2000)}`;
}

let work: string;

beforeAll(() => {
  ensureDist();
  work = mkdtempSync(join(tmpdir(), 'cloudfn-init-'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cloudfn init', () => {
  for (const template of TEMPLATES) {
    it.concurrent(`creates a ${template} project that installs cloudfn from vendor/, and whose tests, type check and build pass`, async ({
      expect,
    }) => {
      const dir = join(work, `${template}-app`);
      const created = await run(process.execPath, [CLI, 'init', dir, '--template', template], {
        env: userEnv(),
        timeout: 120_000,
      });
      expect(created.stdout).toMatch(
        new RegExp(`^Created \\S*${template}-app from the ${template} template \\(\\d+ files\\)\\.\\n`),
      );
      expect(created.stdout).toContain(
        'cloudfn 0.1.0 is not on the npm registry, so it was packed into vendor/cloudfn-0.1.0.tgz',
      );
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies: Record<string, string>;
      };
      expect(pkg.name).toBe(`${template}-app`);
      expect(pkg.dependencies.cloudfn).toBe('file:vendor/cloudfn-0.1.0.tgz');
      expect(existsSync(join(dir, 'vendor/cloudfn-0.1.0.tgz'))).toBe(true);
      expect(readFileSync(join(dir, 'deploy/knative-service.yaml'), 'utf8')).toContain(`name: ${template}-app`);
      expect(readdirSync(dir)).toContain('.gitignore');

      // Generous: with the whole suite running twice side by side on 2 cores, three installs at
      // once took longer than 120 s (the lock file was missing, the install cut by the timeout).
      const npm = (args: string[], cwd = dir) =>
        run('npm', args, { cwd, env: userEnv(), timeout: 240_000 }).catch((error: NpmFailure) => error);
      const installed = await npm(['install', '--prefer-offline']);
      expect(installed.stderr).not.toMatch(/ERR/);
      expect(existsSync(join(dir, 'package-lock.json')), `npm install wrote no lock file: ${outcome(installed)}`).toBe(
        true,
      );
      const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
      expect(lock).toContain('"resolved": "file:vendor/cloudfn-0.1.0.tgz"');
      const tests = await npm(['test', '--', '--reporter=dot']);
      expect(tests.stdout + tests.stderr).toMatch(/Tests\s+.*\d+ passed/);
      expect(tests.stdout + tests.stderr).not.toMatch(/failed/);
      const types = await run('npx', ['tsc', '--noEmit'], { cwd: dir, env: userEnv(), timeout: 240_000 }).catch(
        (error: { stdout: string; stderr: string }) => error,
      );
      expect(types.stdout).toBe('');
      const built = await npm(['run', 'build']);
      expect(built.stdout).toMatch(/\d+ bundles? in dist/);
      expect(existsSync(join(dir, 'dist/server.mjs'))).toBe(true);

      if (template !== 'starter') return;
      // The Dockerfile's build stage: npm ci sees package.json, the lock file and vendor/ only.
      const image = join(work, 'image');
      mkdirSync(image);
      for (const file of ['package.json', 'package-lock.json', 'vendor'])
        cpSync(join(dir, file), join(image, file), { recursive: true });
      const ci = await npm(['ci', '--prefer-offline'], image);
      expect(ci.stderr).not.toMatch(/ERR/);
      for (const file of ['functions', 'tsconfig.json'])
        cpSync(join(dir, file), join(image, file), { recursive: true });
      const bundled = await run('npx', ['cloudfn', 'build', '--minify', '--check'], {
        cwd: image,
        env: userEnv(),
        timeout: 240_000,
      });
      expect(bundled.stdout).toMatch(/ok +dist\/server\.mjs/);
      // The lock npm install wrote is one npm ci takes: the lock check of the build says nothing.
      expect(bundled.stderr).not.toContain('npm ci will refuse');
    }, 900_000);
  }

  it.concurrent('creates a live-room project in the platform layout whose own npm test, type check and build pass', async ({
    expect,
  }) => {
    const dir = join(work, 'live-room-platform');
    const created = await run(process.execPath, [CLI, 'init', dir, '--template', 'live-room', '--layout', 'platform'], {
      env: userEnv(),
      timeout: 120_000,
    });
    expect(created.stdout).toMatch(
      /^Created \S*live-room-platform from the live-room template, in the platform layout \(/,
    );
    expect(existsSync(join(dir, 'start_game.ts'))).toBe(true);
    const npm = (args: string[]) =>
      run('npm', args, { cwd: dir, env: userEnv(), timeout: 240_000 }).catch((error: NpmFailure) => error);
    const installed = await npm(['install', '--prefer-offline']);
    expect(existsSync(join(dir, 'package-lock.json')), `npm install wrote no lock file: ${outcome(installed)}`).toBe(
      true,
    );
    const tests = await npm(['test', '--', '--reporter=dot']);
    // The template's 10 tests and the 3 of the layout's _platform-env.ts.
    expect(tests.stdout + tests.stderr).toMatch(/Tests\s+.*13 passed/);
    expect(tests.stdout + tests.stderr).not.toMatch(/failed/);
    const built = await npm(['run', 'build']);
    expect(built.stdout).toMatch(/1 bundle in dist/);
    expect(built.stdout).toContain('settle  cron "0 * * * * *"  params {"job":"settle-rounds"}  timeout 60000 ms');
  }, 900_000);

  it('refuses a folder that is not empty, and an unknown template, in one line', () => {
    const dir = join(work, 'taken');
    const first = spawnSync(process.execPath, [CLI, 'init', dir], {
      encoding: 'utf8',
      env: userEnv(),
      timeout: 120_000,
    });
    expect(first.status).toBe(0);
    const again = spawnSync(process.execPath, [CLI, 'init', dir], { encoding: 'utf8', env: userEnv() });
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(
      `cloudfn: ${dir}: exists and is not empty; choose a new folder name (cloudfn init never overwrites files)\n`,
    );
    const unknown = spawnSync(process.execPath, [CLI, 'init', join(work, 'x'), '--template', 'blog'], {
      encoding: 'utf8',
      env: userEnv(),
    });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(
      'cloudfn: --template: there is no template "blog"; choose one of callback, live-room, media, service, starter\n',
    );
  });
});
