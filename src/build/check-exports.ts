/**
 * Before bundling, every function is compiled once without writing, so a build fails early
 * with the messages of start-up: a compile error with file:line:column and a code frame, or
 * the one-line CLOUDFN_NO_DEFAULT_EXPORT. The exports are read from esbuild's metafile, so
 * no user code runs at build time.
 */
import { relative } from 'node:path';
import { build, type Message } from 'esbuild';
import type { FoundFunction } from '../../runtime/serve/discover.js';
import { createError } from '../../runtime/errors.js';
import { CompileError, formatMessage } from './compile.js';

/**
 * Throws the first problem found in `functions`: a compile error or a missing default export.
 * @example await checkFunctionExports(root, discoverFunctions(root))
 */
export async function checkFunctionExports(root: string, functions: readonly FoundFunction[]): Promise<void> {
  if (functions.length === 0) return;
  let outputs: Record<string, { entryPoint?: string; exports: string[] }>;
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
      throw createError(exports.includes('main') ? 'CLOUDFN_WECHAT_MAIN_EXPORT' : 'CLOUDFN_NO_DEFAULT_EXPORT', where);
  }
}
