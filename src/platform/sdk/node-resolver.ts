/**
 * The stand-in for JavaScript function files that Node loads itself (`.js`, `.cjs`, `.mjs`,
 * which no esbuild plugin sees): `require` and `import` of `@open-dy/node-server-sdk` that the
 * project cannot resolve load the stand-in. `require` is caught in `Module._resolveFilename`
 * (the one place CommonJS resolution goes through in Node 20), `import` by a resolve hook:
 * in-thread through `module.registerHooks` where Node has it (≥ 22.15 / 23.5; Node 26 deprecates
 * `module.register`, DEP0205, with a warning on stderr), else the hooks of resolve-hooks.ts
 * through `module.register`. Installed once per process by `cloudfn start` and `cloudfn/testing` (the dev
 * server builds every function with esbuild, whose plugin covers them).
 */
import Module, * as nodeModule from 'node:module';
import { pathToFileURL } from 'node:url';
import { installedFrom } from '../../build/sdk-alias.js';
import { ownFile } from '../../own-package.js';

const SDK = '@open-dy/node-server-sdk';

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

/** Whether `require` is patched, and the hooks registered and the stand-in loaded, in this process. */
let required = false;
let loading: Promise<void> | undefined;

/** What `installSdkResolver` covers. */
export interface SdkResolverOptions {
  /**
   * The project has JavaScript functions (`.js`, `.cjs`, `.mjs`), which Node loads itself. Then
   * ES `import`s are caught too, by module hooks, and the stand-in is loaded before any function:
   * a `require` of it while an `import` of it is still loading fails in Node 20 ("not yet fully
   * loaded"), which `cloudfn start` hit loading a .cjs and a .ts function at once. Registering
   * the hooks starts Node's hooks thread (110 ms measured), so TypeScript projects, whose imports
   * esbuild rewrites, skip both. `require` is always covered: patching it costs nothing.
   * @default false
   */
  javascript?: boolean;
}

/**
 * Sends unresolvable requires (and, for JavaScript projects, imports) of the server SDK to the
 * stand-in, in this process, unless the project at `root` has the package installed. From
 * cloudfn's TypeScript sources (its own tests) only `require` is covered, since Node cannot load
 * the hooks file as TypeScript; the built package covers both.
 * @example await installSdkResolver('/srv/app', { javascript: true }) // then import '@open-dy/node-server-sdk' works without it
 */
export async function installSdkResolver(root: string, options: SdkResolverOptions = {}): Promise<void> {
  if (installedFrom(root)) return;
  const standIn = ownFile('src/platform/sdk/index');
  if (!required) {
    required = true;
    const statics = Module as unknown as { _resolveFilename: ResolveFilename };
    const original = statics._resolveFilename;
    statics._resolveFilename = function resolveWithStandIn(request, parent, isMain, resolveOptions) {
      try {
        return original.call(this, request, parent, isMain, resolveOptions);
      } catch (error) {
        if (request !== SDK || (error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
        return standIn;
      }
    };
  }
  if (options.javascript !== true || !standIn.endsWith('.js')) return;
  loading ??= (async () => {
    const url = pathToFileURL(standIn).href;
    registerImportHook(url);
    await import(url);
  })();
  await loading;
}

type SyncResolve = (specifier: string, context: unknown) => { url: string };
type RegisterHooks = (hooks: {
  resolve: (specifier: string, context: unknown, nextResolve: SyncResolve) => { url: string; shortCircuit?: boolean };
}) => unknown;

/**
 * Sends an unresolvable `import` of the SDK to the stand-in at `url`: with `module.registerHooks`
 * (synchronous, on this thread) where Node has it, else with `module.register` and
 * resolve-hooks.ts on Node's hooks thread (Node 20, and 22 before 22.15).
 */
function registerImportHook(url: string): void {
  const registerHooks = (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks === 'function') {
    registerHooks({
      resolve(specifier, context, nextResolve) {
        try {
          return nextResolve(specifier, context);
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (specifier !== SDK || (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND')) throw error;
          return { url, shortCircuit: true };
        }
      },
    });
    return;
  }
  nodeModule.register(pathToFileURL(ownFile('src/platform/sdk/resolve-hooks')), { data: { standIn: url } });
}
