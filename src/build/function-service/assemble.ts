/**
 * The function service's files from one split esbuild pass: each module the pass wrote (a
 * function's entry, a chunk the functions share, a chunk loaded by `import()`) is turned into
 * CommonJS for Node 14 once, and each function's file is then a table of the modules it reaches
 * and a small loader, put together by copying. esbuild cannot split CommonJS, and one pass
 * writing every file whole links and prints the shared code (the runtime, zod) once per file:
 * 50 functions took 1.2 to 3 s of esbuild alone on two cores, where the split pass and this
 * assembly take a fraction of it. Each file still holds all it needs: it can be pasted alone.
 */
import { relative, resolve, sep } from 'node:path';
import { type Metafile, type OutputFile, transform } from 'esbuild';

/** A function's file to assemble: its module in the pass (`videos/list.js`, the out path). */
export interface AssembledEntry {
  /** The function's path in the service (`videos/list.js`). */
  path: string;
}

/**
 * The loader heading every file: the module table, a cache, and a `require` per module that
 * answers the table's relative paths and passes anything else (node's modules, packages left
 * external) to the file's own `require`, `resolve`, `cache` and `main` included.
 */
const LOADER = `var __cloudfn_modules = {}, __cloudfn_cache = {};
function __cloudfn_key(from, id) {
  if (id.charAt(0) !== ".") return undefined;
  var parts = from.split("/"), steps = id.split("/");
  parts.pop();
  for (var i = 0; i < steps.length; i++) {
    if (steps[i] === "..") parts.pop();
    else if (steps[i] !== ".") parts.push(steps[i]);
  }
  var key = parts.join("/");
  return Object.prototype.hasOwnProperty.call(__cloudfn_modules, key) ? key : undefined;
}
function __cloudfn_load(key) {
  var cached = __cloudfn_cache[key];
  if (cached !== undefined) return cached.exports;
  var loaded = (__cloudfn_cache[key] = { exports: {} });
  var inner = function (id) {
    var found = __cloudfn_key(key, id);
    return found === undefined ? require(id) : __cloudfn_load(found);
  };
  inner.resolve = require.resolve;
  inner.cache = require.cache;
  inner.main = require.main;
  __cloudfn_modules[key].call(loaded.exports, loaded, loaded.exports, inner);
  return loaded.exports;
}
`;

/** A module id: the output's path relative to the pass's outdir, with `/`. */
function idOf(outdir: string, file: string): string {
  return relative(outdir, file).split(sep).join('/');
}

/**
 * Assembles one CommonJS file per entry from the outputs of a pass run with `format: 'esm'`,
 * `splitting: true`, `write: false` and `metafile: true` into `outdir` from `root`. Returns each
 * file's text by its path.
 * @example const files = await assembleFunctionFiles(result, { root, outdir, entries: [{ path: 'hello.js' }], target: 'node14' })
 */
export async function assembleFunctionFiles(
  pass: { outputFiles: readonly OutputFile[]; metafile: Metafile },
  options: {
    root: string;
    outdir: string;
    entries: readonly AssembledEntry[];
    /** esbuild's target of the files (the pass's). */
    target: string;
    minify?: boolean;
  },
): Promise<Map<string, string>> {
  const { root, outdir } = options;
  // Each module once: CommonJS for Node 14, with import() as a require of the table's module.
  const modules = new Map<string, string>();
  await Promise.all(
    pass.outputFiles
      .filter((file) => file.path.endsWith('.js'))
      .map(async (file) => {
        const { code } = await transform(file.text, {
          format: 'cjs',
          target: options.target,
          supported: { 'dynamic-import': false },
          minify: options.minify === true,
          logLevel: 'silent',
        });
        modules.set(idOf(outdir, file.path), code);
      }),
  );
  // What each module imports, statically or by import(), in the table's ids.
  const imports = new Map<string, string[]>();
  for (const [key, output] of Object.entries(pass.metafile.outputs))
    imports.set(
      idOf(outdir, resolve(root, key)),
      output.imports.filter((i) => i.external !== true).map((i) => idOf(outdir, resolve(root, i.path))),
    );
  const files = new Map<string, string>();
  for (const entry of options.entries) {
    const reached = [entry.path];
    const seen = new Set(reached);
    for (let i = 0; i < reached.length; i++)
      for (const next of imports.get(reached[i]!) ?? [])
        if (!seen.has(next)) {
          seen.add(next);
          reached.push(next);
        }
    const parts = [LOADER];
    for (const id of reached) {
      const code = modules.get(id);
      if (code === undefined) throw new Error(`the function service's pass wrote no module ${id} for ${entry.path}`);
      parts.push(`__cloudfn_modules[${JSON.stringify(id)}] = function (module, exports, require) {\n${code}};\n`);
    }
    // The entry's default export is the wrapped handler (functionServiceEntry's module.exports).
    parts.push(`module.exports = __cloudfn_load(${JSON.stringify(entry.path)}).default;\n`);
    files.set(entry.path, parts.join(''));
  }
  return files;
}
