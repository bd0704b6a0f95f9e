/**
 * `loadProjectConfig`: a project's `cloudfn.config.*` as the CLI and the library read it, with
 * `cloudfn.config.ts`/`.mts` compiled by esbuild (the runtime's loader cannot compile).
 */
import { join } from 'node:path';
import { type ConfigFile, loadConfigFile } from '../../runtime/serve/config-file.js';
import type { CompileHook } from '../../runtime/serve/load.js';
import { TOOL_CONFIG_KEYS } from '../config/config-keys.js';

export { TOOL_CONFIG_KEYS } from '../config/config-keys.js';

/**
 * The tooling's config keys (src/config/config-keys.ts) with those `services` add (a service a
 * test adds to a dev server's list names its own).
 * @example toolConfigKeys(LOCAL_SERVICES) // TOOL_CONFIG_KEYS and a test service's `counter`
 */
export function toolConfigKeys(services: readonly { readonly configKeys?: readonly string[] }[] = []): string[] {
  const keys = new Set(TOOL_CONFIG_KEYS);
  for (const service of services) for (const key of service.configKeys ?? []) keys.add(key);
  return [...keys];
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
