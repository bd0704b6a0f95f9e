/**
 * `cloudfn build --target function-service --check`: each built file is loaded under Node 14
 * (node14.ts) as the platform loads it, and its handler called once through the imitation of
 * the platform's invocation (imitation.ts): a GET of the function's path with no query, as the
 * platform's console sends by default. A file passes when it loads and its handler returns
 * (an HttpError's answer counts: the function answered); a load failure or a thrown error fails.
 * A function the platform calls with a body (a live-data callback) gets the request the
 * project's `checkRequests` names; a timer function gets its firing (`trigger: "timer"`, a POST
 * of its schedule's params) unless `checkRequests` names another. The platform's environment is
 * set (`SERVICE_ID`, `CLOUD_ENV`, the components' variables: `platform`, which the CLI reads with
 * src/platform/services/check-setup.ts), and inner calls are answered (check-intranet.ts). A process that has answered and does not end within
 * EXIT_BOUND_MS is stopped, and the row names what held it open. When the project imports
 * `@open-dy/node-server-sdk` without having it installed, the check loads cloudfn's stand-in in
 * its place, built for Node 14, and says so; an OpenAPI call with nowhere to go locally counts
 * as an answer, noted, since on the platform the real SDK makes that call. Any other throw
 * fails, a bad argument to the SDK included, and the table then names `checkRequests`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ownFile } from '../../own-package.js';
import { resolveOptions } from '../../../runtime/options.js';
import { installedFrom, SERVER_SDK } from '../sdk-alias.js';
import { optionalPeers } from '../optional-peers.js';
import { loadProjectConfig } from '../project-config.js';
import type { FunctionServiceFile } from './build.js';
import { type CheckPlatform, CheckIntranet, defaultCheckPlatform } from './check-intranet.js';
import type { ImitatedAnswer, ImitatedRequest } from './imitation.js';
import { type CheckNode, ensureCheckNode } from './node14.js';
import { FUNCTION_SERVICE_TARGET } from './build.js';

/** How long a process that has answered may take to end before it is stopped (ms). */
export const EXIT_BOUND_MS = 2000;

/** What the harness printed for one file. */
export interface HarnessOutput {
  /** The Node version that ran it. */
  node?: string;
  answers?: ImitatedAnswer[];
  /** Why the file did not load. */
  loadError?: string;
  /** What held the process open after it answered, when it did not end within the bound. */
  openHandles?: string[];
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
    options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; exitBoundMs?: number } = {},
  ): Promise<HarnessOutput> {
    const harness = await this.#harness();
    const env = {
      ...this.#env(options.env ?? process.env),
      CLOUDFN_CHECK_EXIT_MS: String(options.exitBoundMs ?? EXIT_BOUND_MS),
    };
    return new Promise((resolve) => {
      execFile(
        this.node.path,
        [harness, file, JSON.stringify(requests)],
        { timeout: options.timeoutMs ?? 30_000, env, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          // The harness's lines are JSON objects marked `harness: 1`; the function may print too.
          const output: HarnessOutput = {};
          let found = false;
          for (const line of stdout.split('\n')) {
            if (!line.startsWith('{"harness":1')) continue;
            try {
              const { harness: _, ...rest } = JSON.parse(line) as HarnessOutput & { harness: number };
              Object.assign(output, rest);
              found = true;
            } catch {
              // A line the function printed that only looks like the harness's.
            }
          }
          if (found) resolve(output);
          else
            resolve({
              loadError: `${this.node.path} ${error === null ? 'printed no answer' : `failed (${error.message})`}: ${stderr.trim()}`,
            });
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
  /** More lines of what the run met: inner calls answered, handles that held the process open. */
  notes?: string[];
  /** True when the file had an entry in `checkRequests` (or its timer's firing): no hint about the default GET. */
  requested?: boolean;
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
  /**
   * `"timer"`: a firing of the function's timer trigger, a POST whose body is the timer's params
   * (by default those of its `config.schedule`). @default the console's debug call
   */
  trigger?: 'timer';
}

/** What `checkFunctionService` says besides the rows. */
export interface FunctionServiceCheckResult {
  node: CheckNode;
  checks: FunctionServiceCheck[];
  /** True when the stand-in answered the server SDK's imports. */
  sdkStandIn: boolean;
  /** Lines about the environment of the check (components with no server). */
  notes: string[];
}

/** A timer trigger of the project, as cloudfn-build.json's `timers` lists it (src/contract/timers.ts). */
export interface CheckTimer {
  function: string;
  /** The JSON body of every firing. */
  params: unknown;
}

function imitatedRequest(
  name: string,
  given: CheckRequest | undefined,
  timer: CheckTimer | undefined,
): ImitatedRequest {
  // A timer function with no entry gets its firing, as the platform sends it.
  if (given === undefined && timer !== undefined) given = { trigger: 'timer' };
  if (given === undefined) return { method: 'GET', url: `/${name}`, trigger: 'console_debug' };
  const isTimer = given.trigger === 'timer';
  const body = given.body ?? (isTimer ? (timer?.params ?? {}) : undefined);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(given.headers ?? {})) headers[key.toLowerCase()] = String(value);
  const request: ImitatedRequest = {
    method: (given.method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase(),
    url: `/${name}${given.query ? `?${given.query}` : ''}`,
    headers,
    trigger: isTimer ? 'timer' : 'console_debug',
  };
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    request.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  return request;
}

/** The first line of an error's text: a stack's message, without the frames below it. */
export function firstLine(text: string): string {
  return text.trim().split('\n')[0]!.trim();
}

/** What `checkFunctionService` is given besides the files. */
export interface CheckOptions {
  sdkImporters?: readonly string[];
  requests?: Readonly<Record<string, CheckRequest>>;
  /** The project's timers (cloudfn-build.json's `timers`): their functions get a firing. */
  timers?: readonly CheckTimer[];
  /** The platform around the check. @default defaultCheckPlatform(root) */
  platform?: CheckPlatform;
  /** @default ensureCheckNode(root), which may install Node 14 into the cache */
  node?: CheckNode;
  /** Where the line about installing Node 14 goes. @default nowhere */
  say?: (line: string) => void;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default EXIT_BOUND_MS */
  exitBoundMs?: number;
}

/**
 * Loads each file and calls its handler once; resolves with one row per file.
 * @example const { node, checks } = await checkFunctionService(root, result.files)
 */
export async function checkFunctionService(
  root: string,
  files: readonly FunctionServiceFile[],
  options: CheckOptions = {},
): Promise<FunctionServiceCheckResult> {
  const shell = options.env ?? process.env;
  const sdkStandIn = (options.sdkImporters?.length ?? 0) > 0 && !installedFrom(root);
  const node =
    options.node ?? (await ensureCheckNode(root, { env: shell, ...(options.say ? { say: options.say } : {}) }));
  const config = await loadProjectConfig(root);
  const platform = options.platform ?? defaultCheckPlatform(root);
  const platformEnv = platform.env;
  const notes = [...platform.notes];
  const runner = new ImitationRunner(node, { standIn: sdkStandIn });
  // The sibling services' files run under the same Node, without the stand-in's search path.
  const siblingRunner = new ImitationRunner(node);
  const intranet = new CheckIntranet({
    root,
    setting: platform.service,
    siblings: platform.siblings,
    urls: resolveOptions({ env: shell, config }).innerCallUrls,
    answerWithFile: async (file, request, serviceId) =>
      (await siblingRunner.run(file, [request], { env: { ...shell, ...platformEnv, SERVICE_ID: serviceId } }))
        .answers?.[0],
  });
  const env = { ...shell, ...platformEnv, CLOUDFN_CHECK_INTRANET: await intranet.listen() };
  const timers = new Map((options.timers ?? []).map((timer) => [timer.function, timer]));
  try {
    const checks: FunctionServiceCheck[] = [];
    for (const file of files) {
      const started = performance.now();
      const given = options.requests?.[file.name];
      const timer = timers.get(file.name);
      const output = await runner.run(file.file, [imitatedRequest(file.name, given, timer)], {
        env,
        ...(options.exitBoundMs === undefined ? {} : { exitBoundMs: options.exitBoundMs }),
      });
      const ms = Math.round(performance.now() - started);
      const events = intranet.take();
      const extra = [...events.notes];
      if (output.openHandles !== undefined)
        extra.push(
          `answered, then did not exit within ${options.exitBoundMs ?? EXIT_BOUND_MS} ms and was stopped: ${output.openHandles.length === 0 ? 'something held it open' : output.openHandles.join(', ')} (on the platform the instance stays up and these stay open between calls)`,
        );
      const row = {
        path: file.path,
        ms,
        requested: given !== undefined || timer !== undefined,
        ...(extra.length > 0 ? { notes: extra } : {}),
      };
      const answer = output.answers?.[0];
      const refused = events.refusals.length > 0 ? ` (inner call refused: ${events.refusals.join('; ')})` : '';
      if (answer === undefined)
        checks.push({ ...row, ok: false, problem: firstLine(output.loadError ?? 'no answer') + refused });
      // Only an OpenAPI call with nowhere to go locally is the platform's to answer; any other
      // throw (a bad argument to the SDK included) is the function's, and fails it.
      else if (sdkStandIn && answer.thrown?.code === 'PLATFORM_SDK_NO_OPENAPI_TARGET')
        checks.push({
          ...row,
          ok: true,
          note: `the stand-in answered ${answer.thrown.code}: the SDK call is made on the platform, not here`,
        });
      else if (answer.thrown !== undefined)
        checks.push({
          ...row,
          ok: false,
          status: 500,
          problem: `threw ${answer.thrown.name}${answer.thrown.code === undefined ? '' : ` ${answer.thrown.code}`}: ${firstLine(answer.thrown.message)}${refused}`,
        });
      else if (refused !== '') checks.push({ ...row, ok: false, status: answer.status, problem: refused.slice(2, -1) });
      else checks.push({ ...row, ok: true, status: answer.status });
    }
    return { node: runner.node, checks, sdkStandIn, notes };
  } finally {
    intranet.close();
    runner.close();
    siblingRunner.close();
  }
}

/**
 * The table `--check` prints.
 * @example process.stdout.write(formatCheckTable(node, checks))
 */
export function formatCheckTable(
  node: CheckNode,
  checks: readonly FunctionServiceCheck[],
  options: { sdkStandIn?: boolean; notes?: readonly string[] } = {},
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
  const notes = checks.flatMap((c) => [
    ...(c.ok && c.note !== undefined ? [`\n${c.path}: ${c.note}`] : []),
    ...(c.notes ?? []).map((note) => `\n${c.path}: ${note}`),
  ]);
  const sdk = options.sdkStandIn
    ? `${SERVER_SDK} is not installed here: the check loads cloudfn's stand-in in its place (the platform installs the real one from package.json)\n`
    : '';
  const heading = (options.notes ?? []).map((note) => `${note}\n`).join('');
  // The hint is for files that got the default GET: one given its own request needs another fix.
  const failed = checks.find((c) => !c.ok && c.requested !== true);
  if (failed !== undefined) {
    const name = failed.path.replace(/\.js$/, '');
    problems.push(
      `\nEach file without a checkRequests entry got a GET of its path with no params; a function the platform calls with a body or headers (a callback, a timer's params) gets its own request from checkRequests in cloudfn.config.json, e.g. { "checkRequests": { ${JSON.stringify(name)}: { "method": "POST", "headers": { ... }, "body": { ... } } } }`,
    );
  }
  const after = [...problems, ...notes];
  return `checked under ${node.source}\n${sdk}${heading}${rows.map(line).join('\n')}\n${after.join('')}${after.length > 0 ? '\n' : ''}`;
}
