/**
 * Before bundling, every function is compiled once without writing, so a build fails early
 * with the messages of start-up: a compile error with file:line:column and a code frame, or
 * the one-line CLOUDFN_NO_DEFAULT_EXPORT. The exports are read from esbuild's metafile, so
 * no user code runs at build time. A CommonJS file always has a default export in the metafile
 * (its `module.exports`), so for one the source is read instead: without any assignment to
 * `module.exports` it has only named exports (`exports.handler = ...`), which start-up refuses.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { build, transform, type Message } from 'esbuild';
import type { FoundFunction } from '../../runtime/serve/discover.js';
import { CompileError, formatMessage } from './compile.js';
import { createModuleError } from '../../runtime/serve/module-errors.js';

/**
 * Throws the first problem found in `functions`: a compile error or a missing default export.
 * @example await checkFunctionExports(root, discoverFunctions(root))
 */
export async function checkFunctionExports(root: string, functions: readonly FoundFunction[]): Promise<void> {
  if (functions.length === 0) return;
  let outputs: Record<string, { entryPoint?: string; exports: string[] }>;
  let inputs: Record<string, { format?: string }>;
  try {
    const result = await build({
      entryPoints: functions.map((fn) => fn.file),
      outdir: 'cloudfn-check',
      write: false,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
    });
    outputs = result.metafile.outputs;
    inputs = result.metafile.inputs;
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors ?? [];
    const file = errors[0]?.location?.file ?? 'functions';
    throw new CompileError(file, errors.map((m) => formatMessage(m, root)).join('\n') || String(error));
  }
  const exportsOf = new Map<string, string[]>();
  for (const output of Object.values(outputs))
    if (output.entryPoint !== undefined) exportsOf.set(output.entryPoint, output.exports);
  for (const fn of functions) {
    const where = relative(root, fn.file);
    const exports = exportsOf.get(where) ?? exportsOf.get(fn.file);
    if (exports !== undefined && !exports.includes('default'))
      throw createModuleError(
        exports.includes('main') ? 'CLOUDFN_WECHAT_MAIN_EXPORT' : 'CLOUDFN_NO_DEFAULT_EXPORT',
        where,
      );
    const format = (inputs[where] ?? inputs[fn.file])?.format;
    if (format === 'cjs') {
      const assigned = await moduleExportsOf(fn.file);
      if (assigned === 'main') throw createModuleError('CLOUDFN_WECHAT_MAIN_EXPORT', where);
      if (assigned === 'none') throw createModuleError('CLOUDFN_NO_DEFAULT_EXPORT', where);
    }
  }
}

/** `module.exports = ...` (not `module.exports.x = ...`), after a pass that drops comments. */
const MODULE_EXPORTS_ASSIGNED = /\bmodule\s*\.\s*exports\s*=(?!=)/;

/** `exports.main = ...`, the WeChat-cloud form of a function. */
const WECHAT_MAIN_ASSIGNED = /\b(?:module\s*\.\s*)?exports\s*\.\s*main\s*=(?!=)/;

/**
 * Whether a CommonJS file assigns `module.exports` (the only way it can export a function), only
 * `exports.main` (the WeChat-cloud form), or neither. esbuild's transform drops comments first,
 * so a commented-out assignment does not count.
 * @example await moduleExportsOf('functions/legacy.js') // 'none' for `exports.handler = fn`
 */
async function moduleExportsOf(file: string): Promise<'assigned' | 'main' | 'none'> {
  const loader = /\.tsx?$|\.cts$/.test(file) ? 'ts' : 'js';
  try {
    const { code } = await transform(readFileSync(file, 'utf8'), { loader, logLevel: 'silent' });
    if (MODULE_EXPORTS_ASSIGNED.test(code)) return 'assigned';
    return WECHAT_MAIN_ASSIGNED.test(code) ? 'main' : 'none';
  } catch {
    // The bundle step reports a file that does not compile; this check has nothing to add.
    return 'assigned';
  }
}
