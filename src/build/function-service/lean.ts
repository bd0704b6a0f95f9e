/**
 * What keeps a function-service file small: cloudfn's own modules are marked free of side
 * effects, so esbuild drops each one the function does not use, and with it what that module
 * imports (raw-body and iconv-lite come with `cloudfn/sign`'s callback middleware; a file using
 * `cloudfn/media` went from 225 kB to 141 kB). OpenTelemetry's bridge, loaded
 * by the runtime only when an SDK is registered, is replaced by a module that refuses to load:
 * the function service registers none, and the bridge brought 32 modules of `@opentelemetry/api`.
 */
import { dirname, sep } from 'node:path';
import type { Plugin } from 'esbuild';
import { ownFile } from '../../own-package.js';

/** The folder holding cloudfn's `runtime/` and `src/`. */
const codeRoot = dirname(dirname(ownFile('src/index'))) + sep;

/** Modules that must run when loaded, whatever they export. */
const WITH_SIDE_EFFECTS = /[\\/]runtime[\\/]function-service[\\/]node14-apis\.[jt]s$/;

/** The bridge's import in runtime/trace/otel.ts. */
const OTEL_BRIDGE = /^\.\/otel-bridge\.js$/;

/**
 * The esbuild plugin.
 * @example build({ ..., plugins: [leanFunctionService(), selfAlias({ external: false })] })
 */
export function leanFunctionService(): Plugin {
  return {
    name: 'cloudfn-function-service-lean',
    setup(build) {
      build.onResolve({ filter: OTEL_BRIDGE }, (args) =>
        args.importer.startsWith(codeRoot) ? { path: 'otel-bridge', namespace: 'cloudfn-no-otel' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'cloudfn-no-otel' }, () => ({
        contents: `throw new Error('OpenTelemetry is not bundled for the platform\\'s function service');`,
        loader: 'js',
      }));
      build.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData === 'cloudfn-lean' || !args.importer.startsWith(codeRoot)) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'cloudfn-lean',
        });
        if (
          resolved.errors.length > 0 ||
          !resolved.path.startsWith(codeRoot) ||
          resolved.path.includes(`${sep}node_modules${sep}`)
        )
          return undefined;
        return { path: resolved.path, sideEffects: WITH_SIDE_EFFECTS.test(resolved.path) };
      });
    },
  };
}
