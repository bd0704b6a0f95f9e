/**
 * Imports of `@open-dy/node-server-sdk`, the platform's server SDK, which is not on the public
 * npm registry. Under `cloudfn dev`, `cloudfn start` and `cloudfn/testing`, when the project
 * cannot resolve it, the import goes to cloudfn's local stand-in (src/platform/sdk/); when the
 * project has the package installed, the real one is used. `cloudfn build` always leaves it
 * external: the platform's Node.js image installs it from the project's package.json, and a
 * bundle carrying the stand-in would answer from a local file instead of the platform.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { ownFile } from '../own-package.js';

/** The platform's server SDK package. */
export const SERVER_SDK = '@open-dy/node-server-sdk';

/**
 * Whether `node_modules/@open-dy/node-server-sdk` exists at or above `from`.
 * @example installedFrom('/srv/app/functions') // false
 */
export function installedFrom(from: string): boolean {
  for (let dir = from; ; ) {
    if (existsSync(join(dir, 'node_modules', SERVER_SDK, 'package.json'))) return true;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/**
 * The esbuild plugin. `standIn: false` (cloudfn build) keeps the import external as written;
 * `standIn: true` sends an unresolvable import to the stand-in's file: a file URL in ESM
 * output, an absolute path in CommonJS output (`format: 'cjs'`).
 * @example build({ ..., plugins: [sdkAlias({ standIn: true, format: 'cjs' })] })
 */
export function sdkAlias(options: { standIn: boolean; format?: 'esm' | 'cjs' }): Plugin {
  return {
    name: 'cloudfn-server-sdk',
    setup(build) {
      build.onResolve({ filter: /^@open-dy\/node-server-sdk$/ }, (args) => {
        if (!options.standIn || installedFrom(args.resolveDir)) return { path: args.path, external: true };
        const file = ownFile('src/platform/sdk/index');
        return { path: options.format === 'cjs' ? file : pathToFileURL(file).href, external: true };
      });
    },
  };
}
