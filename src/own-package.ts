/**
 * This copy of cloudfn: the folder of its package.json, its public entries and their files.
 * The dev server and bundles serve `cloudfn` imports from it (build/self-alias.ts), the type
 * checker checks them against it (typecheck/self-types.ts), `init` packs it
 * (init/vendor.ts) and `--help` points into its docs (cli/help.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
/** `.ts` when running from the sources (tests), `.js` from dist/. */
const fromSources = here.endsWith('.ts');
/** The folder holding `runtime/` and `src/`: the checkout, or `dist/` of the package. */
const codeRoot = join(dirname(here), '..');

/** The public entries, as package.json `exports` lists them: specifier → module. */
export const PACKAGE_ENTRIES: Readonly<Record<string, string>> = Object.freeze({
  cloudfn: 'src/index',
  'cloudfn/runtime': 'runtime/index',
  'cloudfn/sign': 'src/sign/index',
  'cloudfn/media': 'src/media/index',
  'cloudfn/testing': 'src/testing/index',
  'cloudfn/client': 'src/client/index',
  'cloudfn/platform': 'src/platform/index',
  'cloudfn/server-sdk': 'src/platform/sdk/public',
});

/**
 * The file of one of this package's modules, e.g. `ownFile('runtime/index')`.
 * @example ownFile('runtime/serve/bundle-entry') // /…/cloudfn/dist/runtime/serve/bundle-entry.js
 */
export function ownFile(module: string): string {
  return join(codeRoot, module + (fromSources ? '.ts' : '.js'));
}

/**
 * The type declarations of one of this package's modules.
 * @example ownTypes('src/index') // /…/cloudfn/dist/src/index.d.ts
 */
export function ownTypes(module: string): string {
  if (!fromSources) return join(codeRoot, module + '.d.ts');
  // From the sources (tests): the built declarations when there are some, since checking a
  // project against cloudfn's whole source tree takes seconds instead of milliseconds.
  const built = join(codeRoot, 'dist', module + '.d.ts');
  return existsSync(built) ? built : join(codeRoot, module + '.ts');
}

/**
 * The folder of this cloudfn's package.json (the checkout, or node_modules/cloudfn), or
 * undefined for a copy without one.
 * @example packageRoot() // '/home/ada/app/node_modules/cloudfn'
 */
export function packageRoot(): string | undefined {
  let dir = dirname(here);
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'cloudfn')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
