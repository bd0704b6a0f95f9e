/**
 * Type checking `cloudfn` imports in a project that cannot resolve cloudfn itself (templates/
 * served from a checkout, or a project run by a global CLI): its imports are checked against
 * this copy, the one that serves them at run time (build/self-alias.ts), through `paths`.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ownTypes, PACKAGE_ENTRIES } from '../own-package.js';

/**
 * `compilerOptions.paths` entries sending `cloudfn` and `cloudfn/<entry>` to this copy's types,
 * or undefined when the project resolves `cloudfn` on its own (its own install wins).
 * @example selfTypePaths('templates/starter') // { cloudfn: ['/…/dist/src/index.d.ts'], ... }
 */
export function selfTypePaths(root: string): Record<string, string[]> | undefined {
  try {
    createRequire(join(root, 'package.json')).resolve('cloudfn');
    return undefined;
  } catch {
    return Object.fromEntries(
      Object.entries(PACKAGE_ENTRIES).map(([specifier, module]) => [specifier, [ownTypes(module)]]),
    );
  }
}
