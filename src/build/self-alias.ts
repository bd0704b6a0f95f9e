/**
 * Imports of `cloudfn` and `cloudfn/<entry>` in a user's function resolve to this very copy of
 * cloudfn, the one whose runtime serves the function. Two copies (a global CLI and a project's
 * node_modules, or the checkout serving templates/) would make two `HttpError` classes, and a
 * thrown `HttpError` from the other copy would fail the runtime's `instanceof` and answer 500.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

const here = fileURLToPath(import.meta.url);
/** `.ts` when running from the sources (tests), `.js` from dist/. */
const ext = here.endsWith('.ts') ? '.ts' : '.js';
/** The folder holding `runtime/` and `src/`: the checkout, or `dist/` of the package. */
const packageRoot = join(dirname(here), '..', '..');

/** The public entries, as package.json `exports` lists them. */
const ENTRIES: Readonly<Record<string, string>> = {
  cloudfn: 'src/index',
  'cloudfn/runtime': 'runtime/index',
  'cloudfn/sign': 'src/sign/index',
  'cloudfn/media': 'src/media/index',
  'cloudfn/testing': 'src/testing/index',
  'cloudfn/client': 'src/client/index',
  'cloudfn/platform': 'src/platform/index',
};

/**
 * The file of one of this package's modules, e.g. `ownFile('runtime/index')`.
 * @example ownFile('runtime/serve/bundle-entry') // /…/cloudfn/dist/runtime/serve/bundle-entry.js
 */
export function ownFile(module: string): string {
  return join(packageRoot, module + ext);
}

/**
 * An esbuild plugin sending `cloudfn` imports to this copy: bundled into the output when
 * `external` is false (cloudfn build), or left as imports of this copy's files (start, dev):
 * a file URL in ESM output, an absolute path in CommonJS output (`format: 'cjs'`).
 * @example build({ ..., plugins: [selfAlias({ external: true })] })
 */
export function selfAlias(options: { external: boolean; format?: 'esm' | 'cjs' }): Plugin {
  return {
    name: 'cloudfn-self',
    setup(build) {
      build.onResolve({ filter: /^cloudfn(\/[a-z]+)?$/ }, (args) => {
        const module = ENTRIES[args.path];
        if (module === undefined) return undefined;
        const file = ownFile(module);
        if (!existsSync(file)) return undefined;
        if (!options.external) return { path: file };
        return { path: options.format === 'cjs' ? file : pathToFileURL(file).href, external: true };
      });
    },
  };
}
