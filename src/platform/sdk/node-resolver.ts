/**
 * The stand-in for JavaScript function files that Node loads itself (`.js`, `.cjs`, `.mjs`,
 * which no esbuild plugin sees): `require` and `import` of `@open-dy/node-server-sdk` that the
 * project cannot resolve load the stand-in. `require` is caught in `Module._resolveFilename`
 * (the one place CommonJS resolution goes through in Node 20), `import` by the hooks of
 * resolve-hooks.ts. Installed once per process by `cloudfn start` and `cloudfn/testing` (the dev
 * server builds every function with esbuild, whose plugin covers them).
 */
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { installedFrom } from '../../build/sdk-alias.js';
import { ownFile } from '../../own-package.js';

const SDK = '@open-dy/node-server-sdk';

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

/** Whether `require` is patched, and whether the import hooks are registered, in this process. */
let required = false;
let imported = false;

/** What `installSdkResolver` covers. */
export interface SdkResolverOptions {
  /**
   * Also catch ES `import`s (`.js`/`.mjs` functions): registering module hooks starts Node's
   * hooks thread, measured at 110 ms of start-up, so it is done only for projects that have
   * such files. `require` is always covered: patching it costs nothing. @default false
   */
  esm?: boolean;
}

/**
 * Sends unresolvable requires (and with `esm`, imports) of the server SDK to the stand-in, in
 * this process, unless the project at `root` has the package installed. TypeScript functions
 * never need it: esbuild's plugin (build/sdk-alias.ts) handles them. From cloudfn's TypeScript
 * sources (its own tests) only `require` is covered, since Node cannot load the hooks file as
 * TypeScript; the built package covers both.
 * @example installSdkResolver('/srv/app', { esm: true }) // then import '@open-dy/node-server-sdk' works in a project without it
 */
export function installSdkResolver(root: string, options: SdkResolverOptions = {}): void {
  if (installedFrom(root)) return;
  if (!required) {
    required = true;
    const standIn = ownFile('src/platform/sdk/index');
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
  if (options.esm === true && !imported) {
    imported = true;
    const hooks = ownFile('src/platform/sdk/resolve-hooks');
    const standIn = pathToFileURL(ownFile('src/platform/sdk/index')).href;
    if (hooks.endsWith('.js')) register(pathToFileURL(hooks), { data: { standIn } });
  }
}
