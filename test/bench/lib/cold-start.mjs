/**
 * The cold-start row: `node dist/hello/index.mjs` (built by `cloudfn build --per-function` from
 * test/bench/fixtures/hello-project) until its first 200, against a bare node:http script
 * until its first 200, alternated pair by pair.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ratioRow, skippedRow } from './rows.mjs';
import { costToFirst200, timeToFirst200 } from './probe.mjs';

const BENCHMARK = 'cold start: node dist/hello/index.mjs to first 200';
const BASELINE = 'bare node:http script';
const GOAL = { op: '<=', value: 1.1 };

/** Builds the fixture project; returns the bundle's path, or why it cannot. */
export function buildHello(root) {
  const cli = join(root, 'dist/src/cli/index.js');
  const help = spawnSync(process.execPath, [cli, 'build', '--help'], { encoding: 'utf8' });
  if (help.status !== 0)
    return { reason: 'not available yet: `cloudfn build` is not in dist/ (npm run build once it lands)' };
  const project = join(root, 'test/bench/fixtures/hello-project');
  const outdir = join(project, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  const built = spawnSync(process.execPath, [cli, 'build', project, '--outdir', outdir, '--per-function'], {
    encoding: 'utf8',
  });
  const bundle = join(outdir, 'hello', 'index.mjs');
  if (built.status !== 0 || !existsSync(bundle)) {
    return {
      reason: `cloudfn build failed (exit ${built.status}): ${(built.stderr || built.stdout).trim().split('\n')[0]}`,
      outdir,
    };
  }
  return { bundle, outdir };
}

/** Whether the running Node has module.enableCompileCache (>= 22.1). */
function hasCompileCache() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

const CACHE_BENCHMARK = 'cold start, compile cache on (warm) against off, CPU time to first 200';
const CACHE_BASELINE = 'the same bundle, CLOUDFN_COMPILE_CACHE=off';

/**
 * The compile-cache row: the hello bundle started with a warm compile cache
 * (NODE_COMPILE_CACHE and CLOUDFN_COMPILE_CACHE on one directory, as docs/performance.md
 * suggests for containers) against the same bundle with it off, alternated pair by pair.
 */
async function compileCacheRow({ bundle, work, rounds, progress }) {
  if (!hasCompileCache())
    return skippedRow({
      id: 'cold-cache',
      benchmark: CACHE_BENCHMARK,
      baseline: CACHE_BASELINE,
      goal: undefined,
      reason: `not available: node ${process.version} has no module.enableCompileCache (22.1 and later)`,
    });
  const dir = join(work, 'compile-cache');
  const on = { NODE_COMPILE_CACHE: dir, CLOUDFN_COMPILE_CACHE: dir };
  const off = { NODE_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '1', CLOUDFN_COMPILE_CACHE: 'off' };
  // The first start with the cache on fills it (stopped by SIGTERM, so Node writes the cache at
  // its exit); one start off warms the file cache alike.
  await costToFirst200([bundle], '/hello?name=x', on, { stop: 'SIGTERM' });
  await timeToFirst200([bundle], '/hello?name=x', off);
  const subject = [];
  const base = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const side of order) {
      const { cpuMs } = await costToFirst200([bundle], '/hello?name=x', side === 'on' ? on : off);
      (side === 'on' ? subject : base).push(cpuMs);
    }
    progress(`  start ${i + 1}: CPU cache on ${subject.at(-1).toFixed(0)} ms, off ${base.at(-1).toFixed(0)} ms`);
  }
  return ratioRow({
    id: 'cold-cache',
    benchmark: CACHE_BENCHMARK,
    baseline: CACHE_BASELINE,
    unit: 'ms',
    subject,
    base,
    goal: undefined,
    note: 'CPU ms of the server process until its first 200 (/proc, 10 ms ticks); below 1× is cheaper; no goal, the issue asks for the measurement',
  });
}

/** The cold-start rows: the bundle against a bare script, and the bundle's compile cache on against off. */
export async function coldStartRows({ root, work, rounds, progress }) {
  const built = buildHello(root);
  try {
    const cold = await coldStartRow({ root, rounds, progress, built });
    const cache =
      built.bundle === undefined
        ? skippedRow({ id: 'cold-cache', benchmark: CACHE_BENCHMARK, baseline: CACHE_BASELINE, reason: built.reason })
        : await compileCacheRow({ bundle: built.bundle, work, rounds, progress });
    return [cold, cache];
  } finally {
    if (built.outdir !== undefined) rmSync(built.outdir, { recursive: true, force: true });
  }
}

async function coldStartRow({ root, rounds, progress, built }) {
  if (built.bundle === undefined)
    return skippedRow({
      id: 'cold',
      benchmark: BENCHMARK,
      baseline: BASELINE,
      goal: `${GOAL.op} ${GOAL.value}×`,
      reason: built.reason,
    });
  const bare = join(root, 'test/bench/servers/bare-start.mjs');
  const subject = [];
  const base = [];
  // One unmeasured start of each warms the file cache, as on a server that has run before.
  await timeToFirst200([bare], '/hello?name=x');
  await timeToFirst200([built.bundle], '/hello?name=x');
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? ['bare', 'bundle'] : ['bundle', 'bare'];
    for (const side of order) {
      const ms = await timeToFirst200([side === 'bare' ? bare : built.bundle], '/hello?name=x');
      (side === 'bare' ? base : subject).push(ms);
    }
    progress(`  start ${i + 1}: bundle ${subject.at(-1).toFixed(1)} ms, bare ${base.at(-1).toFixed(1)} ms`);
  }
  return ratioRow({
    id: 'cold',
    benchmark: BENCHMARK,
    baseline: BASELINE,
    unit: 'ms',
    subject,
    base,
    goal: GOAL,
  });
}
