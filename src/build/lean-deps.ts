/**
 * Dependencies `cloudfn build` swaps for smaller code doing the same job: iconv-lite, when
 * raw-body imports it, becomes ./shims/iconv-lite.ts (node's own decoders; 490 kB less in every
 * bundle, since the runtime reads request bodies with raw-body). Only raw-body's import is
 * swapped: a function that imports iconv-lite itself gets the real one.
 */
import type { Plugin } from 'esbuild';
import { ownFile } from '../own-package.js';

/** An importer inside a raw-body package, wherever it is installed. */
const RAW_BODY = /[\\/]node_modules[\\/]raw-body[\\/]/;

/**
 * The esbuild plugin.
 * @example build({ ..., plugins: [leanDeps()] })
 */
export function leanDeps(): Plugin {
  return {
    name: 'cloudfn-lean-deps',
    setup(build) {
      build.onResolve({ filter: /^iconv-lite$/ }, (args) =>
        RAW_BODY.test(args.importer) ? { path: ownFile('src/build/shims/iconv-lite') } : undefined,
      );
    },
  };
}
