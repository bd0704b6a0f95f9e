/**
 * Type checking `cloudfn` imports in a project that cannot resolve cloudfn itself (templates/
 * served from a checkout, or a project run by a global CLI): its imports are checked against
 * this copy, the one that serves them at run time (build/self-alias.ts), through `paths`; and
 * `@open-dy/node-server-sdk` imports, when it is not installed, against cloudfn's stand-in.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { installedFrom, SERVER_SDK } from '../build/sdk-alias.js';
import { ownTypes, PACKAGE_ENTRIES } from '../own-package.js';

/**
 * `compilerOptions.paths` entries sending `cloudfn` and `cloudfn/<entry>` to this copy's types
 * (unless the project resolves `cloudfn` on its own: its own install wins) and the server SDK to
 * the stand-in's (unless installed); undefined when neither is needed.
 * @example selfTypePaths('templates/starter') // { cloudfn: ['/…/dist/src/index.d.ts'], ... }
 */
export function selfTypePaths(root: string): Record<string, string[]> | undefined {
  const paths: Record<string, string[]> = {};
  try {
    createRequire(join(root, 'package.json')).resolve('cloudfn');
  } catch {
    for (const [specifier, module] of Object.entries(PACKAGE_ENTRIES)) paths[specifier] = [ownTypes(module)];
  }
  // The platform's server SDK is not on the public registry: without it installed, its imports
  // are checked against the stand-in that serves them (build/sdk-alias.ts).
  if (!installedFrom(root)) paths[SERVER_SDK] = [ownTypes('src/platform/sdk/index')];
  return Object.keys(paths).length === 0 ? undefined : paths;
}
