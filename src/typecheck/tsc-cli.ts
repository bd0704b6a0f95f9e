/**
 * Driving a TypeScript that has no compiler API to load (7 and later, native): the project's own
 * `tsc` script is run with `--pretty false` and what it prints is read back into
 * `TypeDiagnostic`s. When cloudfn's imports need `paths` (self-types.ts), a tsconfig extending
 * the project's is written to `.cloudfn/tsc/` and checked instead.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { TypeDiagnostic } from './format.js';

/** `functions/a.ts(3,9): error TS2322: Type ...` */
const LOCATED = /^(.+)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
/** `error TS5023: Unknown compiler option 'x'.` (no file) */
const GLOBAL = /^error (TS\d+): (.*)$/;
/** Terminal control sequences (watch mode clears the screen between runs). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * The errors in `tsc --pretty false` output; continuation lines (indented) join their message.
 * @example parseTscOutput("functions/a.ts(3,9): error TS2322: Type 'string' ...", '/srv/app')
 */
export function parseTscOutput(output: string, root: string): TypeDiagnostic[] {
  const out: TypeDiagnostic[] = [];
  const lines = new Map<string, string[]>();
  let last: TypeDiagnostic | undefined;
  for (const raw of output.replace(ANSI, '').split(/\r?\n/)) {
    const located = LOCATED.exec(raw);
    const global = located === null ? GLOBAL.exec(raw) : null;
    if (located !== null) {
      const [, path = '', line = '1', column = '1', code = '', message = ''] = located;
      const absolute = resolve(root, path);
      let text = lines.get(absolute);
      if (text === undefined) {
        try {
          text = readFileSync(absolute, 'utf8').split(/\r?\n/);
        } catch {
          text = [];
        }
        lines.set(absolute, text);
      }
      last = {
        file: relative(root, absolute).split(sep).join('/'),
        line: Number(line),
        column: Number(column),
        code,
        message,
        lineText: text[Number(line) - 1] ?? '',
        length: 1,
      };
      out.push(last);
    } else if (global !== null) {
      const [, code = '', message = ''] = global;
      last = { file: '', line: 0, column: 0, code, message, lineText: '', length: 0 };
      out.push(last);
    } else if (last !== undefined && /^\s+\S/.test(raw)) {
      last.message += `\n${raw.trim()}`;
    } else {
      last = undefined;
    }
  }
  return out;
}

/** Options of `tscArguments`. */
export interface TscProjectOptions {
  root: string;
  tsconfig: string;
  tsc: string;
  /** From `selfTypePaths`: `paths` to merge over the project's, or undefined for none. */
  selfPaths: Record<string, string[]> | undefined;
}

/**
 * The `-p` argument for a check: the project's tsconfig, or (with `selfPaths`) one written to
 * `.cloudfn/tsc/tsconfig.json` that extends it, merges the paths and keeps its file set.
 * @example tscProject({ root, tsconfig, tsc, selfPaths: undefined }) // '/srv/app/tsconfig.json'
 */
export function tscProject(options: TscProjectOptions): string {
  const { root, tsconfig, tsc, selfPaths } = options;
  if (selfPaths === undefined) return tsconfig;
  const shown = spawnSync(process.execPath, [tsc, '-p', tsconfig, '--showConfig'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let config: {
    compilerOptions?: { paths?: Record<string, string[]>; baseUrl?: string };
    include?: string[];
    exclude?: string[];
    files?: string[];
  } = {};
  try {
    config = JSON.parse(shown.stdout) as typeof config;
  } catch {
    // A tsconfig tsc cannot read: checking the project's own file reports why.
    return tsconfig;
  }
  const base = resolve(root, config.compilerOptions?.baseUrl ?? '.');
  const absolute = (list: string[] | undefined, from: string) =>
    list?.map((p) => (isAbsolute(p) ? p : resolve(from, p)));
  const projectPaths = Object.fromEntries(
    Object.entries(config.compilerOptions?.paths ?? {}).map(([key, list]) => [key, absolute(list, base) ?? []]),
  );
  const written = {
    extends: tsconfig,
    compilerOptions: { paths: { ...projectPaths, ...selfPaths } },
    ...(config.include === undefined && config.files !== undefined
      ? { files: absolute(config.files, root) }
      : { include: absolute(config.include ?? ['**/*'], root) }),
    exclude: absolute(config.exclude ?? ['node_modules', '.cloudfn', 'dist'], root),
  };
  const dir = join(root, '.cloudfn', 'tsc');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'tsconfig.json');
  writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
  return file;
}

/** The flags every check adds: no output files, and output that parses. */
export const TSC_FLAGS = ['--noEmit', '--pretty', 'false'] as const;

/**
 * Runs the project's `tsc` with this Node, in `root`; resolves with what it printed (it exits 1
 * or 2 when it finds errors, which is not a failure here).
 * @example const { stdout } = await runTsc(tsc, ['-p', 'tsconfig.json', '--noEmit'], root)
 */
export function runTsc(tsc: string, args: readonly string[], root: string): Promise<{ stdout: string; code: number }> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [tsc, ...args],
      { cwd: root, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: '' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (code === -1) fail(new Error(`${tsc} did not run: ${error?.message ?? ''} ${stderr}`.trim()));
        else done({ stdout: stdout + stderr, code });
      },
    );
  });
}
