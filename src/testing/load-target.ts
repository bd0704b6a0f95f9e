/**
 * Loading the function a test names by path: the file is found relative to the working folder,
 * TypeScript is compiled by the same esbuild hook `cloudfn start` uses, and the module is
 * checked by the runtime's own loader rules (default export, `config`).
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';
import type { FunctionSpec } from '../../runtime/types.js';
import { createError } from '../../runtime/errors.js';
import { functionFromModule, type CompileHook } from '../../runtime/serve/load.js';
import { FUNCTION_EXTENSIONS } from '../../runtime/serve/discover.js';
import { TOOL_CONFIG_KEYS } from '../build/project-config.js';
import { loadConfigFile } from '../../runtime/serve/config-file.js';
import { resolveOptions } from '../../runtime/options.js';
import { installSdkResolver } from '../platform/sdk/node-resolver.js';

const NEEDS_COMPILE = /\.[cm]?ts$/;

/**
 * The nearest folder at or above `from` holding a package.json: the project's root.
 * @example findProjectRoot('/srv/app/functions/videos') // '/srv/app'
 */
export function findProjectRoot(from: string): string {
  for (let dir = from; ; ) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return from;
    dir = parent;
  }
}

/**
 * The function's name as `cloudfn start` gives it: its path under the functions folder
 * (`functionsDir`, `.` for the root).
 * @example functionNameOf('/srv/app', '/srv/app/functions/videos/list.ts') // 'videos/list'
 * @example functionNameOf('/srv/app', '/srv/app/get_open_id.ts', '.') // 'get_open_id'
 */
export function functionNameOf(root: string, file: string, functionsDir = 'functions'): string {
  const ext = FUNCTION_EXTENSIONS.find((e) => file.endsWith(e)) ?? extname(file);
  const rel = relative(functionsDir === '.' ? root : join(root, functionsDir), file);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  const path = inside ? rel : basename(file);
  const name = path
    .slice(0, path.length - ext.length)
    .split(sep)
    .join('/');
  if (name.endsWith('/index')) return name.slice(0, -'/index'.length);
  return name === '' ? 'index' : name;
}

/** Compiled modules, by file and modification time, so a suite compiles each file once. */
const cache = new Map<string, Promise<FunctionSpec>>();
/** Compile hooks by project root, writing to `<root>/.cloudfn/testing/`. */
const hooks = new Map<string, Promise<CompileHook>>();
/** Makes each compiled file's name unique across processes, threads and calls. */
let compiled = 0;

function hookFor(root: string): Promise<CompileHook> {
  let hook = hooks.get(root);
  if (hook === undefined) {
    // esbuild loads only when a TypeScript file is invoked; a test of handlers never pays for it.
    hook = import('../build/compile.js').then(({ createCompileHook }) =>
      createCompileHook(root, join(root, '.cloudfn', 'testing')),
    );
    hooks.set(root, hook);
  }
  return hook;
}

/**
 * Loads a function file for `invoke`. Paths are relative to `cwd`; the project root is the
 * nearest folder with a package.json, and `functions/videos/list.ts` is named `videos/list`.
 * @example const spec = await loadTarget('functions/hello.ts', process.cwd())
 */
export async function loadTarget(
  path: string,
  cwd: string,
  root?: string,
): Promise<{ spec: FunctionSpec; root: string }> {
  const file = resolve(cwd, path);
  try {
    statSync(file);
  } catch {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      path,
      `there is no such file (looked in ${cwd}); pass a path such as 'functions/hello.ts' relative to the working folder`,
    );
  }
  const projectRoot = root ?? findProjectRoot(dirname(file));
  const config = await loadConfigFile(projectRoot, { configKeys: TOOL_CONFIG_KEYS });
  const name = functionNameOf(projectRoot, file, resolveOptions({ env: process.env, config }).functionsDir);
  return { spec: await loadFunctionFile(file, name, projectRoot), root: projectRoot };
}

/**
 * Loads one function file of the project at `root` under `name`, as `invoke` does: TypeScript
 * compiled by esbuild into `<root>/.cloudfn/testing/`, each version of a file once per process.
 * @example const spec = await loadFunctionFile('/srv/app/functions/hello.ts', 'hello', '/srv/app')
 */
export async function loadFunctionFile(file: string, name: string, root: string): Promise<FunctionSpec> {
  const stat = statSync(file);
  const key = `${file}\0${name}\0${stat.mtimeMs}\0${stat.size}`;
  let loading = cache.get(key);
  if (loading === undefined) {
    loading = load(file, name, relative(root, file) || file, root, stat.mtimeMs);
    cache.set(key, loading);
    loading.catch(() => cache.delete(key));
  }
  return loading;
}

async function load(file: string, name: string, where: string, root: string, version: number): Promise<FunctionSpec> {
  let target = file;
  // A JavaScript function is loaded by Node, not esbuild: its server SDK import needs the resolver.
  if (!NEEDS_COMPILE.test(file)) await installSdkResolver(root, { javascript: true });
  if (NEEDS_COMPILE.test(file)) {
    const compile = await hookFor(root);
    // Test runners load files from several processes and threads at once, and may kill them
    // without an exit event: each compile gets its own file, deleted once imported.
    target = await compile(file, `${name}.${process.pid}-${threadId}-${++compiled}`);
  }
  let mod: Record<string, unknown>;
  try {
    // The version in the URL makes a changed file load anew instead of from the module cache.
    mod = (await import(`${pathToFileURL(target).href}?v=${version}`)) as Record<string, unknown>;
  } catch (error) {
    throw createError('CLOUDFN_BAD_CONFIG', where, `failed to load: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    // The module is in memory now, with its source map inline.
    if (target !== file) rmSync(target, { force: true });
  }
  return functionFromModule(mod, name, where);
}
