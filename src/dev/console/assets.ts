/**
 * The console page's files: `index.html` and `style.css` as written, `main.ts` bundled for the
 * browser by esbuild when first asked for (about 30 ms, once per dev server). The sources are
 * looked up beside this module (running from the checkout's src/) and, from the compiled
 * dist/src/dev/console/, in the package's src/dev/console/page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBrowserScript } from '../../build/console-page.js';
import { createDevError } from '../errors.js';

/** The three files of the page. */
export interface ConsoleAssets {
  html: string;
  css: string;
  js: string;
}

const CANDIDATES = [
  new URL('./page/', import.meta.url),
  new URL('../../../../src/dev/console/page/', import.meta.url),
].map((url) => fileURLToPath(url));

/**
 * Finds the page's source folder.
 * @example findPageDir() // '/work/main/src/dev/console/page/'
 */
export function findPageDir(candidates: readonly string[] = CANDIDATES): string {
  const found = candidates.find((dir) => existsSync(join(dir, 'main.ts')));
  if (found === undefined) throw createDevError('CLOUDFN_DEV_PAGE_MISSING', candidates.join(', '));
  return found;
}

/**
 * Reads and bundles the page.
 * @example const { html, css, js } = await loadConsoleAssets()
 */
export async function loadConsoleAssets(dir: string = findPageDir()): Promise<ConsoleAssets> {
  const [js, html, css] = await Promise.all([
    bundleBrowserScript(join(dir, 'main.ts')),
    readFileSync(join(dir, 'index.html'), 'utf8'),
    readFileSync(join(dir, 'style.css'), 'utf8'),
  ]);
  return { html, css, js };
}
