/**
 * Imports of `@open-dy/node-server-sdk`, the platform's server SDK, which is not on the public
 * npm registry. Where each kind of build sends them (docs/platform-projects.md#cloudfn-build):
 * - `dev` (`cloudfn dev`, `cloudfn start`, `cloudfn/testing`): the project's own copy when it
 *   has one installed, else cloudfn's local stand-in (src/platform/sdk/), left external;
 * - `external` (the function-service target): left as written; the platform installs the
 *   package from the package.json the build writes;
 * - `platform` (container bundles, `"sdk": "platform"`): the installed package, bundled like any
 *   other dependency; not installed, the build stops with one line (CLOUDFN_SDK_NOT_INSTALLED)
 *   rather than writing bundles that stop at start;
 * - `stand-in` (container bundles, `"sdk": "stand-in"`): the stand-in, bundled in, for images
 *   that run outside the platform.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { ownFile } from '../own-package.js';

/** The platform's server SDK package. */
export const SERVER_SDK = '@open-dy/node-server-sdk';

/** Where a build sends the SDK's imports (see the file's comment). */
export type SdkMode = 'dev' | 'external' | 'platform' | 'stand-in';

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

/** What a build saw of the SDK: the files importing it, and those that could not resolve it. */
export class SdkImports {
  /** Files (relative to the root) that import the SDK. */
  readonly importers = new Set<string>();
  /** Of those, the ones that import it under `platform` without it installed. */
  readonly missing = new Set<string>();
}

/** Options of `sdkAlias`. */
export interface SdkAliasOptions {
  mode: SdkMode;
  /** The output's module format: the stand-in's path is a file URL in ESM, a path in CommonJS. @default 'esm' */
  format?: 'esm' | 'cjs';
  /** Records the importers (and, under `platform`, those that cannot resolve it). */
  seen?: SdkImports;
  /** The project root, to name importers relative to it. @default process.cwd() */
  root?: string;
}

/**
 * The esbuild plugin.
 * @example build({ ..., plugins: [sdkAlias({ mode: 'dev', format: 'cjs' })] })
 */
export function sdkAlias(options: SdkAliasOptions): Plugin {
  return {
    name: 'cloudfn-server-sdk',
    setup(build) {
      build.onResolve({ filter: /^@open-dy\/node-server-sdk$/ }, (args) => {
        const importer = relative(options.root ?? process.cwd(), args.importer);
        options.seen?.importers.add(importer);
        switch (options.mode) {
          case 'external':
            return { path: args.path, external: true };
          case 'stand-in':
            return { path: ownFile('src/platform/sdk/index') };
          case 'platform':
            if (installedFrom(args.resolveDir)) return undefined;
            // Kept external so the build goes on; the caller stops with one line after it.
            options.seen?.missing.add(importer);
            return { path: args.path, external: true };
          case 'dev': {
            if (installedFrom(args.resolveDir)) return { path: args.path, external: true };
            const file = ownFile('src/platform/sdk/index');
            return { path: options.format === 'cjs' ? file : pathToFileURL(file).href, external: true };
          }
        }
      });
    },
  };
}
