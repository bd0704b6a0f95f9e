/**
 * Compiling one function file with esbuild for `cloudfn start`: TypeScript (and the modules it
 * imports) bundled into one ESM file, npm packages left external, with an inline source map so
 * stack traces point at the TypeScript lines.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { build, type Message } from 'esbuild';
import { CloudfnError } from '../../runtime/errors.js';
import type { CompileHook } from '../../runtime/serve/load.js';
import { sdkAlias } from './sdk-alias.js';
import { selfAlias } from './self-alias.js';
import { createModuleError } from '../../runtime/serve/module-errors.js';

/** Formats an esbuild message as `file:line:column: text` and a code frame. */
export function formatMessage(message: Message, root: string): string {
  const at = message.location;
  if (at === null) return message.text;
  // esbuild names files relative to its working directory, which is the project root.
  const file = isAbsolute(at.file) ? relative(root, at.file) : at.file;
  const pointer = ' '.repeat(at.column) + '^'.repeat(Math.max(1, at.length));
  return `${file}:${at.line}:${at.column + 1}: ${message.text}\n  ${at.line} | ${at.lineText}\n  ${' '.repeat(String(at.line).length)} | ${pointer}`;
}

/** An esbuild failure, with every error formatted. */
export class CompileError extends CloudfnError {
  override name = 'CompileError';
  readonly formatted: string;
  constructor(file: string, formatted: string) {
    super('CLOUDFN_COMPILE_ERROR', 500, `${createModuleError('CLOUDFN_COMPILE_ERROR', file).message}\n${formatted}`);
    this.formatted = formatted;
  }
}

/**
 * A compile hook writing `<root>/.cloudfn/start/<name>.mjs`. The file is written whole or not
 * at all (a temporary file renamed over it): two `cloudfn start` on one project compile into the
 * same folder, and one must never import the other's file half-written, which read as a module
 * without a default export.
 * @example await startProject(root, { compile: createCompileHook(root) })
 */
export function createCompileHook(root: string, outDir = join(root, '.cloudfn', 'start')): CompileHook {
  return async (file, name) => {
    const outfile = join(outDir, `${name}.mjs`);
    mkdirSync(join(outfile, '..'), { recursive: true });
    let output: Uint8Array;
    try {
      const result = await build({
        entryPoints: [file],
        outfile,
        write: false,
        bundle: true,
        packages: 'external',
        // `cloudfn` imports go to the copy serving the function (one HttpError class).
        // An unresolvable server SDK import loads cloudfn's stand-in (docs/platform-projects.md).
        plugins: [selfAlias({ external: true }), sdkAlias({ mode: 'dev' })],
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        logLevel: 'silent',
        absWorkingDir: root,
      });
      // One file: the source map is inline.
      output = result.outputFiles[0]!.contents;
    } catch (error) {
      const errors = (error as { errors?: Message[] }).errors ?? [];
      throw new CompileError(
        relative(root, file),
        errors.map((m) => formatMessage(m, root)).join('\n') || String(error),
      );
    }
    const partial = `${outfile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(partial, output);
    renameSync(partial, outfile);
    return outfile;
  };
}
