/**
 * The stand-in for JavaScript function files that Node loads itself (`.js`, `.cjs`, `.mjs`,
 * which no esbuild plugin sees): `require` and `import` of `@open-dy/node-server-sdk` that the
 * project cannot resolve load the stand-in. `require` is caught in `Module._resolveFilename`
 * (the one place CommonJS resolution goes through in Node 20), `import` by the hooks of
 * resolve-hooks.ts. Installed once per process by dev, start and `cloudfn/testing`.
 */
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { installedFrom } from '../../build/sdk-alias.js';
import { ownFile } from '../../own-package.js';

const SDK = '@open-dy/node-server-sdk';

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

let installed = false;

/**
 * Sends unresolvable requires and imports of the server SDK to the stand-in, in this process.
 * From cloudfn's TypeScript sources (its own tests) only `require` is covered, since Node
 * cannot load the hooks file as TypeScript; the built package covers both.
 * A project that has the package installed needs nothing, and pays nothing (no hooks thread).
 * @example installSdkResolver('/srv/app') // then require('@open-dy/node-server-sdk') works in a project without it
 */
export function installSdkResolver(root: string): void {
  if (installed || installedFrom(root)) return;
  installed = true;
  const standIn = ownFile('src/platform/sdk/index');
  const statics = Module as unknown as { _resolveFilename: ResolveFilename };
  const original = statics._resolveFilename;
  statics._resolveFilename = function resolveWithStandIn(request, parent, isMain, options) {
    try {
      return original.call(this, request, parent, isMain, options);
    } catch (error) {
      if (request !== SDK || (error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
      return standIn;
    }
  };
  const hooks = ownFile('src/platform/sdk/resolve-hooks');
  if (hooks.endsWith('.js')) register(pathToFileURL(hooks), { data: { standIn: pathToFileURL(standIn).href } });
}
