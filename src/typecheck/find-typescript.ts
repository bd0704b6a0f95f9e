/**
 * Whether a project can be type checked: it has a `tsconfig.json` and TypeScript resolves from
 * its folder (its own devDependency, never cloudfn's copy, so the version is the project's).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** What `findTypeScript` found: the paths to use, or the one-line reason there are none. */
export type TypeScriptSetup = { ok: true; tsconfig: string; typescript: string } | { ok: false; reason: string };

/**
 * Looks for `<root>/tsconfig.json` and the `typescript` package resolvable from `root`.
 * @example findTypeScript('/srv/app') // { ok: true, tsconfig: '/srv/app/tsconfig.json', typescript: '/srv/app/node_modules/typescript/lib/typescript.js' }
 */
export function findTypeScript(root: string): TypeScriptSetup {
  const tsconfig = join(root, 'tsconfig.json');
  if (!existsSync(tsconfig))
    return { ok: false, reason: `no tsconfig.json in ${root} (add one to have types checked)` };
  try {
    const typescript = createRequire(join(root, 'package.json')).resolve('typescript');
    return { ok: true, tsconfig, typescript };
  } catch {
    return {
      ok: false,
      reason: `typescript is not installed in ${root} (npm install -D typescript to have types checked)`,
    };
  }
}
