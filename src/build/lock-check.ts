/**
 * What `npm ci` will refuse in a project's package-lock.json, found offline before an image
 * build meets it: an entry that names a dependency the lock has no entry for. The usual cause is
 * an optional dependency the registry did not serve when the lock was written (a registry or
 * mirror that lags: npm then writes the lock without it, and `npm ci` refuses that same lock as
 * out of sync). One line per missing package, naming the package that wants it and the fix
 * (docs/deploy.md, "When npm ci refuses the lock").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One dependency the lock names but does not hold. */
export interface LockGap {
  /** The package that depends on it, `name@version`, or `package.json` for the project itself. */
  readonly dependent: string;
  /** The missing package's name. */
  readonly missing: string;
  /** Whether it is an optional dependency (the registry-lag case). */
  readonly optional: boolean;
  /** The one line to show. */
  readonly message: string;
}

/** An entry of lockfileVersion 2 or 3's `packages` map, as far as this check reads it. */
interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The paths where Node (and npm) would look for `name` from the package at `path`, nearest first. */
function candidates(path: string, name: string): string[] {
  const out: string[] = [];
  const segments = path === '' ? [] : path.split('/');
  for (let end = segments.length; end >= 0; end--) {
    const base = segments.slice(0, end);
    // `a/node_modules` is no package folder: skip the ancestors that end inside one's name.
    if (end > 0 && base[end - 1] === 'node_modules') continue;
    out.push([...base, 'node_modules', name].join('/'));
  }
  return out;
}

/** The package's own name for a lock path: `node_modules/@a/b` → `@a/b`. */
function nameOf(path: string, entry: LockEntry): string {
  if (entry.name !== undefined) return entry.name;
  const at = path.lastIndexOf('node_modules/');
  return at === -1 ? path : path.slice(at + 'node_modules/'.length);
}

function gapMessage(dependent: string, dependentName: string, missing: string, optional: boolean): string {
  if (dependent === 'package.json')
    return `package-lock.json has no entry for ${missing}, which package.json depends on, so npm ci will refuse this lock; fix: run npm install and commit the lock it writes`;
  const kind = optional ? 'an optional dependency' : 'a dependency';
  const why = optional ? ' (the registry did not serve it when the lock was written)' : '';
  return (
    `package-lock.json lacks ${missing}, ${kind} of ${dependent}${why}, so npm ci will refuse this lock; ` +
    `fix: pin ${dependentName} to an earlier version in package.json ("overrides": { "${dependentName}": "<version>" }) ` +
    `and run npm install, or run npm install again once the registry serves ${missing}`
  );
}

/**
 * Checks a parsed package-lock.json (lockfileVersion 2 or 3). Returns one gap per missing
 * dependency; an empty list when `npm ci` has nothing to refuse on this count, or when the lock
 * is of a version this check does not read.
 */
export function findLockGaps(lock: unknown): LockGap[] {
  const packages = (lock as { packages?: Record<string, LockEntry> } | null)?.packages;
  if (packages === undefined || packages === null || typeof packages !== 'object') return [];
  const gaps: LockGap[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (entry === null || typeof entry !== 'object' || entry.link === true) continue;
    const isRoot = path === '';
    const wanted: Array<[string, boolean]> = [
      ...Object.keys(entry.dependencies ?? {}).map((name): [string, boolean] => [name, false]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name): [string, boolean] => [name, true]),
      ...(isRoot ? Object.keys(entry.devDependencies ?? {}).map((name): [string, boolean] => [name, false]) : []),
    ];
    for (const [name, optional] of wanted) {
      if (candidates(path, name).some((candidate) => packages[candidate] !== undefined)) continue;
      const ownName = nameOf(path, entry);
      const dependent = isRoot ? 'package.json' : `${ownName}@${entry.version ?? '?'}`;
      gaps.push({ dependent, missing: name, optional, message: gapMessage(dependent, ownName, name, optional) });
    }
  }
  return gaps;
}

/**
 * Checks `<root>/package-lock.json` when there is one. Returns the gaps' lines, or one line
 * saying the file is not JSON; nothing when there is no lock.
 */
export function checkProjectLock(root: string): string[] {
  const file = join(root, 'package-lock.json');
  if (!existsSync(file)) return [];
  let lock: unknown;
  try {
    lock = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return [
      `package-lock.json is not JSON (${(error as Error).message}), so npm ci will refuse it; fix: delete it and run npm install`,
    ];
  }
  return findLockGaps(lock).map((gap) => gap.message);
}
