/**
 * The lock check of `cloudfn build`: a lock that names a package it has no entry for is what
 * `npm ci` refuses. Each refused lock is also given to the real npm (`npm ci --offline`, which
 * refuses before it fetches anything), so the check is held against npm's own verdict.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkProjectLock, findLockGaps } from '../../src/build/index.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project folder with this package.json and lock. */
function project(pkg: object, packages: Record<string, object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-lock-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
  const lock = { name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock));
  return dir;
}

/** What `npm ci` says of the folder's lock, without the network. */
async function npmCi(dir: string): Promise<{ refused: boolean; output: string }> {
  const result = await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    timeout: 60_000,
  }).then(
    (done) => ({ refused: false, output: done.stdout + done.stderr }),
    (error: { stdout: string; stderr: string }) => ({ refused: true, output: error.stdout + error.stderr }),
  );
  return result;
}

const tarball = (name: string, version: string) => `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`;

describe('the lock check', () => {
  it('names the optional dependency the registry did not serve, the package that wants it and the fix, in one line', async () => {
    // The shape of the lock npm writes when vite's optional dependency answers 404.
    const dir = project(
      { name: 'app', version: '1.0.0', devDependencies: { vite: '8.4.0' } },
      {
        '': { name: 'app', version: '1.0.0', devDependencies: { vite: '8.4.0' } },
        'node_modules/vite': {
          version: '8.4.0',
          resolved: tarball('vite', '8.4.0'),
          dev: true,
          optionalDependencies: { fsevents: '~2.3.3', 'napi-windows-process-start-time': '^0.1.0' },
        },
        'node_modules/fsevents': {
          version: '2.3.3',
          resolved: tarball('fsevents', '2.3.3'),
          dev: true,
          optional: true,
          os: ['darwin'],
        },
      },
    );
    const lines = checkProjectLock(dir);
    expect(lines).toEqual([
      'package-lock.json lacks napi-windows-process-start-time, an optional dependency of vite@8.4.0 ' +
        '(the registry did not serve it when the lock was written), so npm ci will refuse this lock; ' +
        'fix: pin vite to an earlier version in package.json ("overrides": { "vite": "<version>" }) and run npm install, ' +
        'or run npm install again once the registry serves napi-windows-process-start-time',
    ]);
    expect(lines[0]).not.toContain('\n');
    const npm = await npmCi(dir);
    expect(npm.refused).toBe(true);
    expect(npm.output).toContain('Missing: napi-windows-process-start-time@ from lock file');
  }, 90_000);

  it('finds nothing in a lock npm accepts, nested copies and scoped names included', async () => {
    const dir = project(
      { name: 'app', version: '1.0.0', dependencies: { a: '1.0.0', '@s/b': '1.0.0' } },
      {
        '': { name: 'app', version: '1.0.0', dependencies: { a: '1.0.0', '@s/b': '1.0.0' } },
        'node_modules/a': { version: '1.0.0', resolved: tarball('a', '1.0.0'), dependencies: { c: '^2.0.0' } },
        'node_modules/a/node_modules/c': { version: '2.0.0', resolved: tarball('c', '2.0.0') },
        'node_modules/@s/b': {
          version: '1.0.0',
          resolved: 'https://registry.npmjs.org/@s/b/-/b-1.0.0.tgz',
          dependencies: { c: '^1.0.0' },
        },
        'node_modules/c': { version: '1.0.0', resolved: tarball('c', '1.0.0') },
      },
    );
    expect(checkProjectLock(dir)).toEqual([]);
    // npm gets past its check of the lock and stops only at the download, which --offline forbids.
    const npm = await npmCi(dir);
    expect(npm.output).not.toContain('from lock file');
  }, 90_000);

  it('names a dependency of package.json that the lock lacks, and a regular dependency of a package', () => {
    const gaps = findLockGaps({
      lockfileVersion: 3,
      packages: {
        '': { name: 'app', dependencies: { zod: '^4.0.0', a: '1.0.0' } },
        'node_modules/a': { version: '1.0.0', dependencies: { d: '^1.0.0' } },
      },
    });
    expect(gaps.map(({ dependent, missing, optional }) => ({ dependent, missing, optional }))).toEqual([
      { dependent: 'package.json', missing: 'zod', optional: false },
      { dependent: 'a@1.0.0', missing: 'd', optional: false },
    ]);
    expect(gaps[0]?.message).toBe(
      'package-lock.json has no entry for zod, which package.json depends on, so npm ci will refuse this lock; fix: run npm install and commit the lock it writes',
    );
    expect(gaps[1]?.message).toContain('package-lock.json lacks d, a dependency of a@1.0.0, so npm ci will refuse');
  });

  it('reads no lock where there is none, and says so in one line when the lock is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudfn-lock-'));
    dirs.push(dir);
    expect(checkProjectLock(dir)).toEqual([]);
    writeFileSync(join(dir, 'package-lock.json'), '{"packages": ');
    const [line, ...rest] = checkProjectLock(dir);
    expect(rest).toEqual([]);
    expect(line).toMatch(
      /^package-lock\.json is not JSON \(.+\), so npm ci will refuse it; fix: delete it and run npm install$/,
    );
    // A lock of the old format (lockfileVersion 1, no `packages`) is not read: nothing to say.
    expect(findLockGaps({ lockfileVersion: 1, dependencies: {} })).toEqual([]);
  });

  it('cloudfn build says it on stderr before anything else, in one line, and still builds', async () => {
    ensureDist();
    const dir = project(
      { name: 'app', version: '1.0.0', type: 'module', devDependencies: { vite: '8.4.0' } },
      {
        '': { name: 'app', version: '1.0.0', devDependencies: { vite: '8.4.0' } },
        'node_modules/vite': {
          version: '8.4.0',
          resolved: tarball('vite', '8.4.0'),
          dev: true,
          optionalDependencies: { 'napi-windows-process-start-time': '^0.1.0' },
        },
      },
    );
    writeFileSync(join(dir, 'hello.js'), 'export default () => ({ hello: 1 });\n');
    const built = await run(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'build', '--functions-dir', '.'], {
      cwd: dir,
      timeout: 60_000,
    });
    const [first] = built.stderr.split('\n');
    expect(first).toMatch(
      /^cloudfn: warning: package-lock\.json lacks napi-windows-process-start-time, an optional dependency of vite@8\.4\.0 .*npm ci will refuse this lock; fix: pin vite to an earlier version in package\.json/,
    );
    expect(built.stdout).toMatch(/bundles? in dist/);
  }, 90_000);

  it("the templates pin vite to the version cloudfn's own lock resolves, which the repository's CI installs", () => {
    const rootLock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const vite = rootLock.packages['node_modules/vite']?.version;
    expect(vite).toMatch(/^\d+\.\d+\.\d+$/);
    const templates = readdirSync(join(REPO, 'templates'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(templates).toContain('starter');
    for (const template of templates) {
      const pkg = JSON.parse(readFileSync(join(REPO, 'templates', template, 'package.json'), 'utf8')) as {
        overrides?: Record<string, string>;
      };
      expect(pkg.overrides, template).toEqual({ vite });
    }
  });
});
