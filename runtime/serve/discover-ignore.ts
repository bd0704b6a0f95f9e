/**
 * What discovery skips besides its fixed rules: `.gitignore`-style patterns (from the project's
 * `.gitignore` in the platform layout, and from the `functionsIgnore` option), matched against
 * paths relative to the project root. The subset read: `#` comments, blank lines, a leading `/`
 * (anchored at the root), a trailing `/` (folders only), `*`, `?` and `**`; a `!` line (a
 * re-inclusion) is skipped, so a negated file stays skipped: discovery errs on the side of not
 * serving a file the user keeps out of git.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Folders of the project's own at the root of the platform layout: scripts, never functions. */
export const OWNED_FOLDERS: readonly string[] = ['scripts', 'tools', 'bin'];

/** One pattern, compiled. */
interface Rule {
  regex: RegExp;
  folderOnly: boolean;
}

/** A test of a root-relative path (with `/`): whether discovery skips it. */
export type IgnoreTest = (path: string, isFolder: boolean) => boolean;

function compile(pattern: string): Rule | undefined {
  let body = pattern.trim();
  if (body === '' || body.startsWith('#') || body.startsWith('!')) return undefined;
  const folderOnly = body.endsWith('/');
  body = body.replace(/\/+$/, '');
  // A pattern with a slash (other than at its end) is anchored at the root, as in git.
  const anchored = body.includes('/');
  body = body.replace(/^\//, '');
  let source = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '*' && body[i + 1] === '*') {
      source += '.*';
      i++;
      if (body[i + 1] === '/') i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return { regex: new RegExp(anchored ? `^${source}$` : `(^|/)${source}$`), folderOnly };
}

/**
 * The test of a list of patterns.
 * @example ignoreTest(['scripts/', '*.mjs'])('scripts', true) // true
 */
export function ignoreTest(patterns: readonly string[]): IgnoreTest {
  const rules = patterns.map(compile).filter((rule): rule is Rule => rule !== undefined);
  return (path, isFolder) => rules.some((rule) => (isFolder || !rule.folderOnly) && rule.regex.test(path));
}

/**
 * The patterns of `<root>/.gitignore`, or none when there is no such file.
 * @example readGitignore('/srv/game') // ['node_modules/', '.env', 'scripts/']
 */
export function readGitignore(root: string): string[] {
  try {
    return readFileSync(join(root, '.gitignore'), 'utf8').split(/\r?\n/);
  } catch {
    return [];
  }
}
