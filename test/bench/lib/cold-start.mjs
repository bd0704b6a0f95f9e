/**
 * The cold-start row: `node dist/hello/index.mjs` (built by `cloudfn build` from
 * test/bench/fixtures/hello-project) until its first 200, against a bare node:http script
 * until its first 200, alternated pair by pair.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ratioRow, skippedRow } from './rows.mjs';
import { timeToFirst200 } from './probe.mjs';

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
  const built = spawnSync(process.execPath, [cli, 'build', project, '--outdir', outdir], { encoding: 'utf8' });
  const bundle = join(outdir, 'hello', 'index.mjs');
  if (built.status !== 0 || !existsSync(bundle)) {
    return {
      reason: `cloudfn build failed (exit ${built.status}): ${(built.stderr || built.stdout).trim().split('\n')[0]}`,
      outdir,
    };
  }
  return { bundle, outdir };
}

export async function coldStartRow({ root, rounds, progress }) {
  const built = buildHello(root);
  try {
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
  } finally {
    if (built.outdir !== undefined) rmSync(built.outdir, { recursive: true, force: true });
  }
}
