/**
 * A package the function service's files leave external (`@open-dy/node-server-sdk`, the
 * packages of `--external`) is required where its importer runs, not first. The pass writes ES
 * modules (assemble.ts), whose imports of an external package go to the top of a chunk and so
 * would load before the file's entry ran: before the Node 14 APIs it defines
 * (runtime/function-service/node14-apis.ts; the SDK's stand-in needs `process.getBuiltinModule`)
 * and before the modules imported ahead of it. Each such import is sent to a one-line CommonJS
 * module, `module.exports = require('<pkg>')`, which esbuild bundles lazily like any other, as
 * the CommonJS pass did. Native packages get the same from native.ts; node's own modules have no
 * order to keep.
 */
import { builtinModules } from 'node:module';
import type { Plugin } from 'esbuild';

const NAMESPACE = 'cloudfn-external-require';
/** Marks the plugin's own look-up. */
const LOOKING = 'cloudfn-external-require';
const BUILTINS = new Set(builtinModules);

/**
 * The esbuild plugin; put it first, so that it sees each import before the plugins that make
 * packages external.
 * @example build({ ..., format: 'esm', plugins: [requireExternals(root), sdkAlias({ mode: 'external' })] })
 */
export function requireExternals(root: string): Plugin {
  return {
    name: 'cloudfn-external-requires',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        // The shim's own require() is the external one.
        if (args.namespace === NAMESPACE) return { path: args.path, external: true };
        // A require() already runs where it is written.
        if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
        // A plugin's own look-up (this one's, native.ts's): answering it would send it round for ever.
        if (args.pluginData !== undefined) return undefined;
        if (BUILTINS.has(args.path) || args.path.startsWith('node:')) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          namespace: args.namespace,
          pluginData: LOOKING,
        });
        if (resolved.errors.length > 0 || !resolved.external) return undefined;
        return { path: resolved.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}
