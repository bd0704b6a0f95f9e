/**
 * The end of every `--help`: where the command's documentation pages are on this machine,
 * inside the installed package (docs/ ships with it), as absolute paths a reader can open.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of cloudfn's package.json: the checkout, or node_modules/cloudfn. */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'cloudfn')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The absolute path of a page of cloudfn's docs/, or its repository path when the package
 * has no docs folder (a copy without it).
 * @example docsPage('dev.md') // '/home/ada/app/node_modules/cloudfn/docs/dev.md'
 */
export function docsPage(page: string): string {
  const root = packageRoot();
  const file = root === undefined ? undefined : join(root, 'docs', page);
  return file !== undefined && existsSync(file) ? file : `docs/${page} in cloudfn's repository`;
}

/**
 * A command's usage followed by the paths of its pages.
 * @example helpText(HELP, ['dev.md', 'platform.md'])
 */
export function helpText(usage: string, pages: readonly string[]): string {
  return `${usage}\n\n${pages.map((page, i) => `${i === 0 ? 'docs:' : '     '} ${docsPage(page)}`).join('\n')}`;
}
