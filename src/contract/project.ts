/**
 * A project's functions as the contract tools read them (`cloudfn openapi`, `cloudfn client`,
 * `cloudfn build`): imported with their config (TypeScript compiled to `.cloudfn/contract/`),
 * and the project's name and version for the document.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveOptions } from '../../runtime/options.js';
import { loadProjectFunctions } from '../../runtime/serve/start.js';
import type { FunctionSpec } from '../../runtime/types.js';
import { createCompileHook } from '../build/compile.js';
import { loadProjectConfig } from '../build/project-config.js';

/** What the contract tools know of a project. */
export interface ContractProject {
  root: string;
  /** The functions folder, relative to root. */
  functionsDir: string;
  functions: FunctionSpec[];
  /** package.json's name, when there is one. */
  title?: string;
  /** package.json's version, when there is one. */
  version?: string;
}

/**
 * Imports every function of the project at `root`.
 * @example const project = await loadContractProject(process.cwd())
 */
export async function loadContractProject(root: string): Promise<ContractProject> {
  const { file: _file, ...config } = await loadProjectConfig(root);
  const { functionsDir, functionsIgnore } = resolveOptions({ config, env: {} });
  const functions = await loadProjectFunctions(
    root,
    createCompileHook(root, join(root, '.cloudfn', 'contract')),
    functionsDir,
    functionsIgnore,
  );
  const manifest = join(root, 'package.json');
  const pkg = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string })
    : {};
  return {
    root,
    functionsDir,
    functions,
    ...(pkg.name === undefined ? {} : { title: pkg.name }),
    ...(pkg.version === undefined ? {} : { version: pkg.version }),
  };
}
