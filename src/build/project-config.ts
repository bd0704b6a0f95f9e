/**
 * `loadProjectConfig`: a project's `cloudfn.config.*` as the CLI and the library read it, with
 * `cloudfn.config.ts`/`.mts` compiled by esbuild (the runtime's loader cannot compile).
 */
import { join } from 'node:path';
import { type ConfigFile, loadConfigFile } from '../../runtime/serve/config-file.js';
import type { CompileHook } from '../../runtime/serve/load.js';

/** esbuild loads only when there is a TypeScript config: `cloudfn/testing` and start stay light. */
function lazyCompileHook(root: string): CompileHook {
  return async (file, name) => {
    const { createCompileHook } = await import('./compile.js');
    return createCompileHook(root, join(root, '.cloudfn', 'config'))(file, name);
  };
}

/**
 * Loads the config of `root`; a TypeScript config is compiled to `<root>/.cloudfn/config/`
 * unless `compile` says where.
 * @example const config = await loadProjectConfig(process.cwd())
 */
export function loadProjectConfig(
  root: string,
  compile: CompileHook = lazyCompileHook(root),
): Promise<ConfigFile & { file?: string }> {
  return loadConfigFile(root, { compile });
}
