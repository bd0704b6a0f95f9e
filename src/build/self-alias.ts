/**
 * Imports of `cloudfn` and `cloudfn/<entry>` in a user's function resolve to this very copy of
 * cloudfn, the one whose runtime serves the function. Two copies (a global CLI and a project's
 * node_modules, or the checkout serving templates/) would make two `HttpError` classes, and a
 * thrown `HttpError` from the other copy would fail the runtime's `instanceof` and answer 500.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { ownFile, PACKAGE_ENTRIES } from '../own-package.js';

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
        const module = PACKAGE_ENTRIES[args.path];
        if (module === undefined) return undefined;
        const file = ownFile(module);
        if (!existsSync(file)) return undefined;
        if (!options.external) return { path: file };
        return { path: options.format === 'cjs' ? file : pathToFileURL(file).href, external: true };
      });
    },
  };
}
