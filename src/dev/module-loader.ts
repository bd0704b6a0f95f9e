/**
 * Evaluating a rebuilt function in the running process. CommonJS code is compiled as a new
 * module that is never put in `require.cache`, so once the router drops the old handler the
 * garbage collector frees the whole old module: memory stays flat over any number of reloads.
 * It goes through `Module.prototype._compile`, the one path that registers the inline source
 * map (with `process.setSourceMapsEnabled(true)`) so stack traces name the TypeScript lines;
 * `vm.Script` and `vm.compileFunction` do not, in Node 20. The file name given is the source
 * file's, so `__dirname`, `require` and the stack frames all point at the source.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

let esmLoads = 0;

interface CompilableModule {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
  _compile(code: string, filename: string): unknown;
}

interface ModuleStatics {
  _nodeModulePaths(from: string): string[];
}

/**
 * Evaluates CommonJS code as if it were `filename`, outside the require cache.
 * @example const exports = evaluateCommonJs('module.exports = () => 1', '/srv/app/functions/one.ts')
 */
export function evaluateCommonJs(code: string, filename: string): unknown {
  const mod = new Module(filename) as unknown as CompilableModule;
  mod.filename = filename;
  mod.paths = (Module as unknown as ModuleStatics)._nodeModulePaths(dirname(filename));
  mod._compile(code, filename);
  mod.loaded = true;
  return mod.exports;
}

/**
 * Imports ESM code (a function with top-level await) from a fresh file in `dir`. Node never
 * unloads an ES module, so each reload of such a function keeps its old copy in memory; the
 * dev server says so once. The file is removed after the import: the module stays loaded.
 * @example await importEsm(code, '/srv/app/.cloudfn/dev', 'hello')
 */
export async function importEsm(code: string, dir: string, name: string): Promise<Record<string, unknown>> {
  mkdirSync(dir, { recursive: true });
  // A URL is imported once per process: every load needs a name never used before.
  const file = join(dir, `${name.replaceAll('/', '__')}.${Date.now().toString(36)}-${++esmLoads}.mjs`);
  writeFileSync(file, code);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } finally {
    rmSync(file, { force: true });
  }
}
