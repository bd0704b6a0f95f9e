/**
 * Starting a server from a project folder, the way `cloudfn start` and `cloudfn dev` do: read
 * the config file, resolve where the functions are, load them (or take them from the dev
 * server's reloader), and serve them with `serve` (serve.ts, re-exported here).
 */
import { relative } from 'node:path';
import { resolveOptions } from '../options.js';
import type { FunctionSpec } from '../types.js';
import { checkFunctionNames, loadConfigFile } from './config-file.js';
import { discoverFunctions } from './discover.js';
import { loadFunction, type CompileHook } from './load.js';
import { extensionConfigKeys } from './extension.js';
import { type RunningServer, type ServeOptions, serve } from './serve.js';

export { type RunningServer, type ServeOptions, serve } from './serve.js';

/**
 * Where a project's functions come from: imported once (`cloudfn start`), or built and kept in
 * step with their files (`cloudfn dev`'s `Reloader`).
 */
export interface FunctionSource {
  /**
   * Loads every function of `functionsDir` (relative to the root), skipping the paths of
   * `functionsIgnore`; resolves with those to serve.
   */
  load(functionsDir: string, functionsIgnore: readonly string[]): Promise<FunctionSpec[]>;
  /** Every function found, by name, served or not: cloudfn.config's `functions` must name one of them. */
  names(): string[];
}

/** Options of `startProject`: those of `serve` plus where the functions come from. */
export interface StartOptions extends ServeOptions {
  /**
   * Top-level keys the config file may hold beside the runtime's and the extensions' (keys the
   * tooling reads, so that `start` and `dev` accept the same files). @default none
   */
  configKeys?: readonly string[];
  /** Turns a TypeScript file into an importable one (cloudfn start passes esbuild's). */
  compile?: CompileHook;
  /** @default the project's files, imported once (with `compile`) */
  functions?: FunctionSource;
}

/**
 * Loads every function of a project folder and serves them: what `cloudfn start` runs, and,
 * with its `Reloader` as the source and its extensions, `cloudfn dev`.
 * @example await startProject('/srv/app', { flags: { port: '8000' }, compile })
 */
export async function startProject(root: string, options: StartOptions = {}): Promise<RunningServer> {
  const configKeys = [...(options.configKeys ?? []), ...extensionConfigKeys(options.extensions ?? [])];
  const config = options.config ?? (await loadConfigFile(root, { compile: options.compile, configKeys }));
  const { functionsDir, functionsIgnore } = resolveOptions({
    flags: options.flags,
    env: options.env ?? process.env,
    config,
  });
  const source = options.functions ?? importedOnce(root, options.compile);
  const specs = await source.load(functionsDir, functionsIgnore);
  checkFunctionNames(config, source.names());
  return serve(specs, { ...options, config });
}

/** The functions of `cloudfn start` and `startProject`: imported once, every one or a refusal. */
function importedOnce(root: string, compile: CompileHook | undefined): FunctionSource {
  let names: string[] = [];
  return {
    async load(functionsDir, functionsIgnore) {
      const specs = await loadProjectFunctions(root, compile, functionsDir, functionsIgnore);
      names = specs.map((spec) => spec.name);
      return specs;
    },
    names: () => names,
  };
}

/** Discovers and imports every function of a project (in `functionsDir`), in name order. */
export async function loadProjectFunctions(
  root: string,
  compile?: CompileHook,
  functionsDir = 'functions',
  functionsIgnore: readonly string[] = [],
): Promise<FunctionSpec[]> {
  const found = discoverFunctions(root, functionsDir, { ignore: functionsIgnore });
  return Promise.all(found.map(({ name, file }) => loadFunction(file, name, relative(root, file), compile)));
}
