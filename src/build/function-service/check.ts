/**
 * `cloudfn build --target function-service --check`: each built file is loaded under Node 14
 * (node14.ts) as the platform loads it, and its handler called once through the imitation of
 * the platform's invocation (imitation.ts): a GET of the function's path with no query, as the
 * platform's console sends by default. A file passes when it loads and its handler returns
 * (an HttpError's answer counts: the function answered); a load failure or a thrown error fails.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ownFile } from '../../own-package.js';
import type { FunctionServiceFile } from './build.js';
import type { ImitatedAnswer, ImitatedRequest } from './imitation.js';
import { type CheckNode, findCheckNode } from './node14.js';
import { FUNCTION_SERVICE_TARGET } from './build.js';

/** What the harness printed for one file. */
export interface HarnessOutput {
  /** The Node version that ran it. */
  node?: string;
  answers?: ImitatedAnswer[];
  /** Why the file did not load. */
  loadError?: string;
}

/**
 * Runs built files under one Node through the harness; the harness script is bundled once.
 * @example const runner = new ImitationRunner(findCheckNode(root)); await runner.run(file, [{ method: 'GET', url: '/hello' }])
 */
export class ImitationRunner {
  readonly node: CheckNode;
  #script: Promise<string> | undefined;
  #dir: string | undefined;
  constructor(node: CheckNode) {
    this.node = node;
  }

  /** The harness as one CommonJS file for Node 14, written to a temporary folder. */
  #harness(): Promise<string> {
    this.#script ??= build({
      entryPoints: [ownFile('src/build/function-service/harness')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: FUNCTION_SERVICE_TARGET,
      write: false,
      logLevel: 'silent',
    }).then((result) => {
      this.#dir = mkdtempSync(join(tmpdir(), 'cloudfn-imitation-'));
      const file = join(this.#dir, 'harness.cjs');
      writeFileSync(file, result.outputFiles[0]!.contents);
      return file;
    });
    return this.#script;
  }

  /** Loads `file` and answers `requests` in one Node process. */
  async run(
    file: string,
    requests: readonly ImitatedRequest[],
    options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
  ): Promise<HarnessOutput> {
    const harness = await this.#harness();
    return new Promise((resolve) => {
      execFile(
        this.node.path,
        [harness, file, JSON.stringify(requests)],
        { timeout: options.timeoutMs ?? 30_000, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const line = stdout.trim().split('\n').pop() ?? '';
          try {
            resolve(JSON.parse(line) as HarnessOutput);
          } catch {
            resolve({
              loadError: `${this.node.path} ${error === null ? 'printed no answer' : `failed (${error.message})`}: ${stderr.trim()}`,
            });
          }
        },
      );
    });
  }

  /** Removes the harness's temporary folder. */
  close(): void {
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** The outcome of checking one file. */
export interface FunctionServiceCheck {
  path: string;
  ok: boolean;
  /** The status the imitation answered, when the file loaded. */
  status?: number;
  problem?: string;
  ms: number;
}

/**
 * Loads each file and calls its handler once; resolves with one row per file.
 * @example const { node, checks } = await checkFunctionService(root, result.files)
 */
export async function checkFunctionService(
  root: string,
  files: readonly FunctionServiceFile[],
): Promise<{ node: CheckNode; checks: FunctionServiceCheck[] }> {
  const runner = new ImitationRunner(findCheckNode(root));
  try {
    const checks: FunctionServiceCheck[] = [];
    for (const file of files) {
      const started = performance.now();
      const output = await runner.run(file.file, [{ method: 'GET', url: `/${file.name}`, trigger: 'console_debug' }]);
      const ms = Math.round(performance.now() - started);
      const answer = output.answers?.[0];
      if (answer === undefined)
        checks.push({ path: file.path, ok: false, problem: output.loadError ?? 'no answer', ms });
      else if (answer.thrown !== undefined)
        checks.push({
          path: file.path,
          ok: false,
          status: 500,
          problem: `threw ${answer.thrown.name}: ${answer.thrown.message}`,
          ms,
        });
      else checks.push({ path: file.path, ok: true, status: answer.status, ms });
    }
    return { node: runner.node, checks };
  } finally {
    runner.close();
  }
}

/**
 * The table `--check` prints.
 * @example process.stdout.write(formatCheckTable(node, checks))
 */
export function formatCheckTable(node: CheckNode, checks: readonly FunctionServiceCheck[]): string {
  const rows = [
    ['file', 'result', 'status', 'time'],
    ...checks.map((c) => [c.path, c.ok ? 'ok' : 'FAIL', c.status === undefined ? '-' : String(c.status), `${c.ms} ms`]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  const line = (row: string[]): string =>
    row
      .map((cell, col) => cell.padEnd(widths[col]!))
      .join('  ')
      .trimEnd();
  const problems = checks.filter((c) => !c.ok).map((c) => `\n${c.path}: ${c.problem}`);
  return `checked under ${node.source}\n${rows.map(line).join('\n')}\n${problems.join('')}${problems.length > 0 ? '\n' : ''}`;
}
