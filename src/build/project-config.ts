/**
 * `loadProjectConfig`: a project's `cloudfn.config.*` as the CLI and the library read it, with
 * `cloudfn.config.ts`/`.mts` compiled by esbuild (the runtime's loader cannot compile).
 */
import { join } from 'node:path';
import { type ConfigFile, loadConfigFile } from '../../runtime/serve/config-file.js';
import type { CompileHook } from '../../runtime/serve/load.js';
import { localServiceConfigKeys } from '../local-services.js';

/**
 * The top-level keys of cloudfn.config that the tooling reads beside the runtime's options:
 * the local services' (`devUser`, `liveData`) and `checkRequests` (`cloudfn build --target
 * function-service --check`). Every command accepts them, so `start` and `dev` judge a config alike.
 */
export const TOOL_CONFIG_KEYS: readonly string[] = [...localServiceConfigKeys(), 'checkRequests'];

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
  return loadConfigFile(root, { compile, configKeys: TOOL_CONFIG_KEYS });
}
