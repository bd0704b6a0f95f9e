/**
 * One type check of a project, as `tsc --noEmit -p tsconfig.json` would do it with the project's
 * own TypeScript: in process through its compiler API (5.x, 6.x), or by running its `tsc` (7 and
 * later, see tsc-cli.ts). What `cloudfn build` runs before bundling.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { toTypeDiagnostics, type TsApi } from './diagnostics.js';
import { findTypeScript } from './find-typescript.js';
import { selfTypePaths } from './self-types.js';
import { parseTscOutput, runTsc, TSC_FLAGS, tscProject } from './tsc-cli.js';
import type { TypeDiagnostic } from './format.js';

/** The outcome: the errors found, or why nothing was checked. */
export type CheckResult =
  | { checked: true; diagnostics: TypeDiagnostic[]; ms: number }
  | { checked: false; reason: string };

/** The members of the compiler API a one-shot check calls. */
interface TsCompiler extends TsApi {
  sys: unknown;
  readConfigFile(file: string, read: (path: string) => string | undefined): { config?: unknown; error?: unknown };
  parseJsonConfigFileContent(
    config: unknown,
    host: unknown,
    base: string,
  ): { options: Record<string, unknown>; fileNames: string[]; errors: unknown[] };
  createProgram(
    files: string[],
    options: Record<string, unknown>,
  ): { getConfigFileParsingDiagnostics?(): readonly unknown[] } & Record<string, unknown>;
  getPreEmitDiagnostics(program: unknown): readonly unknown[];
}

/**
 * Type checks `root` with its tsconfig.json and its own TypeScript.
 * @example const result = await checkProject('/srv/app'); if (result.checked && result.diagnostics.length > 0) ...
 */
export async function checkProject(root: string): Promise<CheckResult> {
  const setup = findTypeScript(root);
  if (!setup.ok) return { checked: false, reason: setup.reason };
  const started = performance.now();
  const version = `TypeScript ${setup.version}`;
  try {
    if (setup.engine === 'cli') {
      const project = tscProject({ ...setup, root, selfPaths: selfTypePaths(root) });
      const { stdout, code } = await runTsc(setup.tsc, ['-p', project, ...TSC_FLAGS], root);
      const diagnostics = parseTscOutput(stdout, root);
      // Exit 1/2 with nothing parsed is output this reader does not know: say so, never pass.
      if (code !== 0 && diagnostics.length === 0)
        return { checked: false, reason: `${version}'s tsc exited ${code}: ${stdout.trim().split('\n')[0] ?? ''}` };
      return { checked: true, diagnostics, ms: performance.now() - started };
    }
    return checkWithApi(root, setup.typescript, setup.tsconfig, started);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      checked: false,
      reason: `${version} could not check this project (${message.split('\n')[0]}); run npx tsc --noEmit to see why`,
    };
  }
}

/** The in-process check through the compiler API of TypeScript 5.x/6.x. */
function checkWithApi(root: string, typescript: string, tsconfig: string, started: number): CheckResult {
  const setup = { typescript, tsconfig };
  const ts = createRequire(setup.typescript)(setup.typescript) as TsCompiler;
  const sys = ts.sys as { readFile(path: string): string | undefined };
  const read = ts.readConfigFile(setup.tsconfig, (path) => sys.readFile(path));
  if (read.error !== undefined)
    return { checked: true, diagnostics: toTypeDiagnostics(ts, [read.error], root), ms: performance.now() - started };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(setup.tsconfig));
  const self = selfTypePaths(root);
  const paths =
    self === undefined
      ? {}
      : { paths: { ...(parsed.options['paths'] as Record<string, string[]> | undefined), ...self } };
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, ...paths, noEmit: true });
  const diagnostics = toTypeDiagnostics(ts, [...parsed.errors, ...ts.getPreEmitDiagnostics(program)], root);
  return { checked: true, diagnostics, ms: performance.now() - started };
}
