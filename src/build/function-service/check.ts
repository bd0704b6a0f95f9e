/**
 * `cloudfn build --target function-service --check`: each built file is loaded under Node 14
 * (node14.ts) as the platform loads it, and its handler called once through the imitation of
 * the platform's invocation (imitation.ts): a GET of the function's path with no query, as the
 * platform's console sends by default. A file passes when it loads and its handler returns
 * (an HttpError's answer counts: the function answered); a load failure or a thrown error fails.
 * A function the platform calls with a body (a live-data callback) gets the request the
 * project's `checkRequests` names. When the project imports `@open-dy/node-server-sdk` without
 * having it installed, the check loads cloudfn's stand-in in its place, built for Node 14, and
 * says so; an OpenAPI call with nowhere to go locally counts as an answer, noted, since on the
 * platform the real SDK makes that call. Any other throw fails, a bad argument to the SDK
 * included, and the table then names `checkRequests`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ownFile } from '../../own-package.js';
import { installedFrom, SERVER_SDK } from '../sdk-alias.js';
import { optionalPeers } from '../optional-peers.js';
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
  readonly #standIn: boolean;
  #script: Promise<string> | undefined;
  #dir: string | undefined;
  /**
   * `standIn: true` answers `require('@open-dy/node-server-sdk')` with cloudfn's stand-in (a
   * Node 14 build of it on NODE_PATH, which Node reads only after the file's own node_modules),
   * its database in the temporary folder.
   */
  constructor(node: CheckNode, options: { standIn?: boolean } = {}) {
    this.node = node;
    this.#standIn = options.standIn === true;
  }

  /** The harness (and the stand-in) as CommonJS files for Node 14, written to a temporary folder. */
  #harness(): Promise<string> {
    this.#script ??= Promise.all([
      this.#bundleHarness(),
      this.#standIn ? bundleStandIn() : Promise.resolve(undefined),
    ]).then(([harness, standIn]) => {
      this.#dir = mkdtempSync(join(tmpdir(), 'cloudfn-imitation-'));
      const file = join(this.#dir, 'harness.cjs');
      writeFileSync(file, harness);
      if (standIn !== undefined) {
        const dir = join(this.#dir, 'node_modules', ...SERVER_SDK.split('/'));
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'index.js'), standIn);
        writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: SERVER_SDK, main: 'index.js' })}\n`);
      }
      return file;
    });
    return this.#script;
  }

  /** The environment of one run: the stand-in on NODE_PATH, its data in the temporary folder. */
  #env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    if (!this.#standIn || this.#dir === undefined) return env;
    const paths = [join(this.#dir, 'node_modules'), ...(env.NODE_PATH ? [env.NODE_PATH] : [])];
    return { ...env, NODE_PATH: paths.join(':'), CLOUDFN_PLATFORM_DATA: join(this.#dir, 'data') };
  }

  #bundleHarness(): Promise<Uint8Array> {
    return build({
      entryPoints: [ownFile('src/build/function-service/harness')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: FUNCTION_SERVICE_TARGET,
      write: false,
      logLevel: 'silent',
    }).then((result) => result.outputFiles[0]!.contents);
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
        {
          timeout: options.timeoutMs ?? 30_000,
          env: this.#env(options.env ?? process.env),
          maxBuffer: 64 * 1024 * 1024,
        },
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

/**
 * The stand-in for Node 14: its own `structuredClone` (Node 17) where the global is missing,
 * scoped to its module so that a function's own use of one still fails the check as it would
 * on the platform.
 */
function bundleStandIn(): Promise<Uint8Array> {
  return build({
    entryPoints: [ownFile('src/platform/sdk/index')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: FUNCTION_SERVICE_TARGET,
    banner: {
      js: `var structuredClone = globalThis.structuredClone || function (value) { var v8 = require('v8'); return v8.deserialize(v8.serialize(value)); };`,
    },
    // mingo, an optional peer, is left external when it is not installed (PLATFORM_SDK_NO_MINGO).
    plugins: [optionalPeers()],
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.contents);
}

/** The outcome of checking one file. */
export interface FunctionServiceCheck {
  path: string;
  ok: boolean;
  /** The status the imitation answered, when the file loaded. */
  status?: number;
  problem?: string;
  /** Said of a file that passed: the stand-in answered one of its SDK calls with an error. */
  note?: string;
  ms: number;
}

/** A request of the project's `checkRequests`, for a function the platform calls with a body. */
export interface CheckRequest {
  /** @default 'POST' when there is a body, else 'GET' */
  method?: string;
  /** The query string, without `?`. */
  query?: string;
  headers?: Record<string, string>;
  /** JSON, sent with `Content-Type: application/json` unless the headers name another type (a string is sent as is). */
  body?: unknown;
}

/** What `checkFunctionService` says besides the rows. */
export interface FunctionServiceCheckResult {
  node: CheckNode;
  checks: FunctionServiceCheck[];
  /** True when the stand-in answered the server SDK's imports. */
  sdkStandIn: boolean;
}

function imitatedRequest(name: string, given: CheckRequest | undefined): ImitatedRequest {
  if (given === undefined) return { method: 'GET', url: `/${name}`, trigger: 'console_debug' };
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(given.headers ?? {})) headers[key.toLowerCase()] = String(value);
  const request: ImitatedRequest = {
    method: (given.method ?? (given.body === undefined ? 'GET' : 'POST')).toUpperCase(),
    url: `/${name}${given.query ? `?${given.query}` : ''}`,
    headers,
    trigger: 'console_debug',
  };
  if (given.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    request.body = typeof given.body === 'string' ? given.body : JSON.stringify(given.body);
  }
  return request;
}

/** The first line of an error's text: a stack's message, without the frames below it. */
export function firstLine(text: string): string {
  return text.trim().split('\n')[0]!.trim();
}

/**
 * Loads each file and calls its handler once; resolves with one row per file.
 * @example const { node, checks } = await checkFunctionService(root, result.files)
 */
export async function checkFunctionService(
  root: string,
  files: readonly FunctionServiceFile[],
  options: { sdkImporters?: readonly string[]; requests?: Readonly<Record<string, CheckRequest>> } = {},
): Promise<FunctionServiceCheckResult> {
  const sdkStandIn = (options.sdkImporters?.length ?? 0) > 0 && !installedFrom(root);
  const runner = new ImitationRunner(findCheckNode(root), { standIn: sdkStandIn });
  try {
    const checks: FunctionServiceCheck[] = [];
    for (const file of files) {
      const started = performance.now();
      const output = await runner.run(file.file, [imitatedRequest(file.name, options.requests?.[file.name])]);
      const ms = Math.round(performance.now() - started);
      const answer = output.answers?.[0];
      if (answer === undefined)
        checks.push({ path: file.path, ok: false, problem: firstLine(output.loadError ?? 'no answer'), ms });
      // Only an OpenAPI call with nowhere to go locally is the platform's to answer; any other
      // throw (a bad argument to the SDK included) is the function's, and fails it.
      else if (sdkStandIn && answer.thrown?.code === 'PLATFORM_SDK_NO_OPENAPI_TARGET')
        checks.push({
          path: file.path,
          ok: true,
          note: `the stand-in answered ${answer.thrown.code}: the SDK call is made on the platform, not here`,
          ms,
        });
      else if (answer.thrown !== undefined)
        checks.push({
          path: file.path,
          ok: false,
          status: 500,
          problem: `threw ${answer.thrown.name}${answer.thrown.code === undefined ? '' : ` ${answer.thrown.code}`}: ${firstLine(answer.thrown.message)}`,
          ms,
        });
      else checks.push({ path: file.path, ok: true, status: answer.status, ms });
    }
    return { node: runner.node, checks, sdkStandIn };
  } finally {
    runner.close();
  }
}

/**
 * The table `--check` prints.
 * @example process.stdout.write(formatCheckTable(node, checks))
 */
export function formatCheckTable(
  node: CheckNode,
  checks: readonly FunctionServiceCheck[],
  options: { sdkStandIn?: boolean } = {},
): string {
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
  const notes = checks.filter((c) => c.ok && c.note !== undefined).map((c) => `\n${c.path}: ${c.note}`);
  const sdk = options.sdkStandIn
    ? `${SERVER_SDK} is not installed here: the check loads cloudfn's stand-in in its place (the platform installs the real one from package.json)\n`
    : '';
  const failed = checks.find((c) => !c.ok);
  if (failed !== undefined) {
    const name = failed.path.replace(/\.js$/, '');
    problems.push(
      `\nEach file got a GET of its path with no params; a function the platform calls with a body or headers (a callback, a timer's params) gets its own request from checkRequests in cloudfn.config.json, e.g. { "checkRequests": { ${JSON.stringify(name)}: { "method": "POST", "headers": { ... }, "body": { ... } } } }`,
    );
  }
  const after = [...problems, ...notes];
  return `checked under ${node.source}\n${sdk}${rows.map(line).join('\n')}\n${after.join('')}${after.length > 0 ? '\n' : ''}`;
}
