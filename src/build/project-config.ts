/**
 * `loadProjectConfig`: a project's `cloudfn.config.*` as the CLI and the library read it, with
 * `cloudfn.config.ts`/`.mts` compiled by esbuild (the runtime's loader cannot compile).
 */
import { join } from 'node:path';
import { type ConfigFile, loadConfigFile } from '../../runtime/serve/config-file.js';
import type { CompileHook } from '../../runtime/serve/load.js';
import type { LocalService } from '../local-service.js';
import { localServiceConfigKeys } from '../local-services.js';

/**
 * The top-level keys of cloudfn.config that the tooling reads beside the runtime's options:
 * the local services' (`devUser`, `liveData`) and `checkRequests` (`cloudfn build --target
 * function-service --check`). Every command accepts them, so `start` and `dev` judge a config alike.
 */
export const TOOL_CONFIG_KEYS: readonly string[] = toolConfigKeys();

/** The tooling's config keys with those of `services` (a dev server's list). */
export function toolConfigKeys(services?: readonly LocalService[]): string[] {
  return [...localServiceConfigKeys(services), 'checkRequests'];
}

/** esbuild loads only when there is a TypeScript config: `cloudfn/testing` and start stay light. */
function lazyCompileHook(root: string): CompileHook {
  return async (file, name) => {
    const { createCompileHook } = await import('./compile.js');
    return createCompileHook(root, join(root, '.cloudfn', 'config'))(file, name);
  };
}

/** How `loadProjectConfig` reads. */
export interface ProjectConfigOptions {
  /** @default esbuild into `<root>/.cloudfn/config/`, loaded only for a TypeScript config */
  compile?: CompileHook;
  /** The top-level keys accepted beside the runtime's. @default TOOL_CONFIG_KEYS */
  configKeys?: readonly string[];
}

/**
 * Loads the config of `root`; a TypeScript config is compiled to `<root>/.cloudfn/config/`
 * unless `compile` says where.
 * @example const config = await loadProjectConfig(process.cwd())
 */
export function loadProjectConfig(
  root: string,
  options: ProjectConfigOptions = {},
): Promise<ConfigFile & { file?: string }> {
  return loadConfigFile(root, {
    compile: options.compile ?? lazyCompileHook(root),
    configKeys: options.configKeys ?? TOOL_CONFIG_KEYS,
  });
}
