/**
 * The end of every `--help`: where the command's documentation pages are on this machine,
 * inside the installed package (docs/ ships with it), as absolute paths a reader can open.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../own-package.js';

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
