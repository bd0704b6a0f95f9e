/**
 * Compiling a project once before forking workers: the primary reports a compile error or a
 * missing default export as the one line `cloudfn start` prints, and the workers only import.
 */
import { join } from 'node:path';
import { TOOL_CONFIG_KEYS } from './project-config.js';
import { loadConfigFile } from '../../runtime/serve/config-file.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import type { CompileHook } from '../../runtime/serve/load.js';
import { checkFunctionExports } from './check-exports.js';
import { createCompileHook } from './compile.js';

const NEEDS_COMPILE = /\.[cm]?ts$/;

/**
 * Where `cloudfn start` writes compiled functions.
 * @example startOutDir('/srv/app') // '/srv/app/.cloudfn/start'
 */
export function startOutDir(root: string): string {
  return join(root, '.cloudfn', 'start');
}

/**
 * Checks and compiles every function of `root`; throws the first problem.
 * @example await precompileProject(root) // then workers use precompiledHook(root)
 */
export async function precompileProject(
  root: string,
  functionsDir = 'functions',
  functionsIgnore: readonly string[] = [],
): Promise<void> {
  // Compiled beside the functions, so the workers' precompiledHook finds a cloudfn.config.ts.
  const compile = createCompileHook(root, startOutDir(root));
  await loadConfigFile(root, { compile, configKeys: TOOL_CONFIG_KEYS });
  const found = discoverFunctions(root, functionsDir, { ignore: functionsIgnore });
  await checkFunctionExports(root, found);
  for (const fn of found) if (NEEDS_COMPILE.test(fn.file)) await compile(fn.file, fn.name);
}

/**
 * The compile hook of a worker: the file the primary compiled.
 * @example await startProject(root, { compile: precompiledHook(root) })
 */
export function precompiledHook(root: string): CompileHook {
  const outDir = startOutDir(root);
  return async (_file, name) => join(outDir, `${name}.mjs`);
}
