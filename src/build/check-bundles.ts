/**
 * `cloudfn build --check`: each bundle is started as it will run in production (`node
 * --enable-source-maps <bundle>` on a free port), asked for its health path, and stopped with
 * SIGTERM; it passes when it served, answered 200 and exited 0. Then the chunks it loads only
 * when first needed (the multipart parser, the Redis stores) are imported in a process of their
 * own. Every module of the bundle is loaded that way, so a missing external package or a
 * failing import shows here, not in production. A failure is said in one line per bundle (the
 * error's own line, not Node's stack under it): with eight bundles failing alike, a stack each
 * was 150 lines. `checkBundles` checks a build's bundles a few at a time and times them all.
 */
import { execFile, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { DEFAULT_HEALTH_PATH } from '../../runtime/options.js';

/** The outcome of checking one bundle. */
export interface BundleCheck {
  file: string;
  ok: boolean;
  /** Why it failed: what the bundle printed on stderr, or what went wrong. */
  problem?: string;
  ms: number;
}

/** Options of `checkBundle`. */
export interface CheckBundleOptions {
  /** The bundle's chunk files (`BuiltBundle.chunks`), each imported after the server check. */
  chunks?: readonly string[];
  /** How long the bundle may take to serve. @default 15000 */
  timeoutMs?: number;
}

/**
 * Starts, probes and stops one bundle, then imports its chunks.
 * @example const result = await checkBundle('dist/hello/index.mjs', { chunks: built.chunks })
 */
export async function checkBundle(file: string, options: CheckBundleOptions = {}): Promise<BundleCheck> {
  const started = performance.now();
  const served = await checkServing(file, options.timeoutMs ?? 15_000);
  const chunks = options.chunks ?? [];
  if (!served.ok || chunks.length === 0) return served;
  const problem = await importChunks(chunks, options.timeoutMs ?? 15_000);
  const ms = Math.round(performance.now() - started);
  return problem === undefined ? { file, ok: true, ms } : { file, ok: false, problem, ms };
}

/** What `checkBundles` found: one row per bundle, in the order given, and the wall time of all. */
export interface BundleChecks {
  checks: BundleCheck[];
  ms: number;
}

/**
 * Checks the bundles of one build, at most `concurrency` at a time: `server.mjs` is one process
 * whatever the number of functions, but `--per-function` adds one bundle per function, and 300
 * processes started at once would starve each other past their start-up bound.
 * @example const { checks, ms } = await checkBundles(result.bundles)
 */
export async function checkBundles(
  bundles: readonly { file: string; chunks?: readonly string[] }[],
  options: { concurrency?: number; timeoutMs?: number } = {},
): Promise<BundleChecks> {
  const started = performance.now();
  const checks: BundleCheck[] = new Array(bundles.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bundles.length) {
      const i = next++;
      const bundle = bundles[i]!;
      checks[i] = await checkBundle(bundle.file, {
        ...(bundle.chunks === undefined ? {} : { chunks: bundle.chunks }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? availableParallelism() * 2, bundles.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return { checks, ms: Math.round(performance.now() - started) };
}

/**
 * cloudfn's optional peers, which a build leaves external when the project has not installed
 * them: a chunk that imports one cannot load here, and that is no fault of the bundle (turning
 * the feature on says which package to install, e.g. CLOUDFN_METRICS_UNAVAILABLE).
 */
const OPTIONAL_PEERS = ['prom-client', 'ioredis'];

/**
 * The line of a failed process's stderr that says what failed: cloudfn's own one-line error, or
 * the first `...Error: ...` line of a stack, else the first line.
 * @example errorLine("node:internal/...\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'\n    at ...") // "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'"
 */
export function errorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return (
    lines.find((line) => line.startsWith('cloudfn: ')) ??
    lines.find((line) => /^[A-Za-z]*Error\b[^:]*: /.test(line)) ??
    lines[0] ??
    ''
  );
}

/** The environment of a checked bundle: a free port, the health path, no lame-duck period. */
const CHECK_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  CLOUDFN_HEALTH_PATH: DEFAULT_HEALTH_PATH,
  // No lame-duck period: no balancer watches this check, and each bundle would wait it out.
  CLOUDFN_DRAIN_DELAY: '0',
};

/**
 * Imports each chunk in a fresh node; resolves with what failed, or undefined. A chunk that
 * imports what it shares with the entry imports the entry (fold-chunks.ts), which starts its
 * server: on a free port, and the process exits once every chunk is imported.
 */
function importChunks(chunks: readonly string[], timeoutMs: number): Promise<string | undefined> {
  // The outcome is said by the exit code: the entry, once started, keeps serving on stray errors.
  const code = `const peers = ${JSON.stringify(OPTIONAL_PEERS)};
for (const url of JSON.parse(process.argv[1])) {
  try {
    await import(url);
  } catch (error) {
    const missing = error?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package '([^']+)'/.exec(error.message);
    if (missing && peers.includes(missing[1])) continue;
    process.stderr.write(String(error?.stack ?? error) + '\\n');
    process.exit(1);
  }
}
process.exit(0);`;
  const urls = JSON.stringify(chunks.map((chunk) => pathToFileURL(chunk).href));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--enable-source-maps', '--input-type=module', '-e', code, urls],
      { timeout: timeoutMs, env: { ...process.env, ...CHECK_ENV } },
      (error, _stdout, stderr) =>
        resolve(
          error === null
            ? undefined
            : `a chunk it loads on first use failed to import: ${errorLine(stderr) || error.message}`,
        ),
    );
  });
}

function checkServing(file: string, timeoutMs: number): Promise<BundleCheck> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], {
      env: { ...process.env, ...CHECK_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let problem: string | undefined;
    let probed = false;
    const timer = setTimeout(() => {
      problem ??= `did not start within ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    const fail = (why: string): void => {
      problem ??= why;
      child.kill('SIGKILL');
    };
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (probed) return;
      // The start-up line is JSON with the bound url.
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stdout);
      if (match === null) return;
      probed = true;
      fetch(match[1] + DEFAULT_HEALTH_PATH).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) return fail(`its health path answered ${res.status}`);
          child.kill('SIGTERM');
        },
        (error: unknown) => fail(`its health path could not be reached: ${String(error)}`),
      );
    });
    child.on('error', (error) => fail(String(error)));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = Math.round(performance.now() - started);
      if (problem === undefined && !probed) problem = `exited (${signal ?? `code ${code}`}) before serving`;
      if (problem === undefined && code !== 0)
        problem = `exited with ${signal ?? `code ${code}`} after SIGTERM instead of 0`;
      if (problem !== undefined && stderr.trim() !== '') problem += `: ${errorLine(stderr)}`;
      resolve(problem === undefined ? { file, ok: true, ms } : { file, ok: false, problem, ms });
    });
  });
}
