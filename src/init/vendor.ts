/**
 * Where a new project gets cloudfn from: the npm registry when this cloudfn's version is
 * published there, else a tarball of this very cloudfn packed into the project's `vendor/`
 * (so `npm install` works on a clone, offline, and inside the template's Dockerfile).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createError } from '../../runtime/errors.js';
import { packageRoot as ownPackageRoot } from '../own-package.js';

const here = dirname(fileURLToPath(import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The folder of this cloudfn's package.json: the checkout, or the installed package. */
export function packageRoot(): string {
  const root = ownPackageRoot();
  if (root === undefined) throw new Error(`cloudfn's package.json is missing above ${here}; reinstall cloudfn`);
  return root;
}

/** The version of this cloudfn. @example ownVersion() // '0.1.0' */
export function ownVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** Options of `isPublished`. */
export interface PublishedOptions {
  /** ms the registry gets to answer; no answer counts as not published. @default 10000 */
  timeoutMs?: number;
}

/**
 * Whether `cloudfn@<version>` can be installed from the registry npm is configured with:
 * `npm view cloudfn@<version> version` printing that version. A 404, an unreachable registry
 * or no answer in time all mean no: then the registry cannot install it either.
 * @example isPublished('0.1.0') // false while 0.1.0 is not on npm
 */
export function isPublished(version: string, options: PublishedOptions = {}): boolean {
  const result = spawnSync(npm, ['view', `cloudfn@${version}`, 'version', '--fetch-retries=0'], {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 10_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return result.status === 0 && result.stdout.trim().split(/\s+/).includes(version);
}

/**
 * Packs this cloudfn (`npm pack` of its package root, without running its scripts) into
 * `<dir>/vendor/` and returns the tarball's path relative to `dir`.
 * @example vendorCloudfn('my-app') // 'vendor/cloudfn-0.1.0.tgz'
 */
export function vendorCloudfn(dir: string): string {
  const root = packageRoot();
  const destination = join(dir, 'vendor');
  mkdirSync(destination, { recursive: true });
  const result = spawnSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const detail =
    result.error?.message ??
    (result.stderr.split('\n').find((line) => /error/i.test(line)) || `exit code ${String(result.status)}`);
  if (result.status !== 0) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      'cloudfn init',
      `npm pack of ${root} failed (${detail}); check that npm works there, or publish cloudfn and run init again`,
    );
  }
  const packed = (JSON.parse(result.stdout) as { filename: string }[])[0]?.filename;
  if (packed === undefined || !existsSync(join(destination, packed))) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      'cloudfn init',
      `npm pack of ${root} wrote no tarball into ${destination}; run npm pack there to see why`,
    );
  }
  return `vendor/${packed}`;
}
