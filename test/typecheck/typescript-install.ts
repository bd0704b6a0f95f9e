/**
 * Real installs of other TypeScript versions for the tests that check a project with them: each
 * is installed once with npm into a cache under the system's temp folder (kept between runs, so
 * a local run is fast and always tests the same exact versions). Offline and outside CI the
 * tests that need them skip; under CI (CI=true) a failed install fails them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The exact versions tested: the native 7, the last 6.x, the first and last 5.x, and the 3.8 the platform's templates pin. */
export const TYPESCRIPT_VERSIONS = ['7.0.2', '6.0.3', '5.9.3', '5.0.4', '3.8.3'] as const;

/**
 * The `node_modules` holding `typescript@version` and `@types/node`, installed on first use;
 * undefined when the registry cannot be reached outside CI.
 * @example const modules = installedTypeScript('7.0.2')
 */
export function installedTypeScript(version: string): string | undefined {
  const dir = join(process.env['CLOUDFN_TS_CACHE'] ?? join(tmpdir(), 'cloudfn-typescript-cache'), version);
  const modules = join(dir, 'node_modules');
  if (existsSync(join(modules, 'typescript', 'package.json')) && existsSync(join(modules, '@types', 'node')))
    return modules;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  try {
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-save', `typescript@${version}`, '@types/node@20'],
      { cwd: dir, stdio: 'pipe', timeout: 180_000, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    return modules;
  } catch (error) {
    if (process.env['CI'] === 'true') throw error;
    return undefined;
  }
}
