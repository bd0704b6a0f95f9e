/**
 * The `--workers auto` rows: `cloudfn start --workers auto` (one worker per CPU) against
 * `cloudfn start --workers 1`, both the real CLI serving test/bench/fixtures/hello-project,
 * GET /hello?name=world at 64 connections, in alternated one-second turns as the other HTTP
 * rows. Nothing is pinned: the workers need every core, so the load generator shares them.
 * Besides req/s, the CPU time per request of each side (the primary and all its workers, read
 * from /proc) shows what a machine with cores to spare would see: on n free cores, n workers
 * serve n × (1-worker CPU ÷ n-worker CPU per request) times the 1-worker rate.
 */
import { cpSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { runAutocannon } from './autocannon.mjs';
import { startCli } from './cli-server.mjs';
import { ratioRow } from './rows.mjs';
import { median } from './stats.mjs';
import { runWrk } from './wrk.mjs';

export const WORKERS_BENCHMARK = 'cloudfn start --workers auto, GET';
export const WORKERS_CPU_BENCHMARK = 'cloudfn start --workers auto, CPU time per GET';
export const WORKERS_BASELINE = 'cloudfn start --workers 1';

/**
 * Runs the rounds and returns the two rows: req/s (its CPU column is the scaling projected on
 * n free cores) and CPU µs per request.
 * @param {{ root: string, work: string, rounds: number, seconds: number, warmup: number,
 *   load: 'wrk' | 'autocannon', problemsOf: (...runs: object[][]) => string[], progress: (line: string) => void }} o
 */
export async function workersRows({ root, work, rounds, seconds, warmup, load, problemsOf, progress }) {
  const n = availableParallelism();
  const cli = join(root, 'dist/src/cli/index.js');
  // cloudfn start compiles into <root>/.cloudfn: a copy keeps the fixture clean.
  const project = join(work, 'workers-project');
  cpSync(join(root, 'test/bench/fixtures/hello-project'), project, { recursive: true });
  const logFile = join(work, 'workers.log');
  const runLoad = load === 'autocannon' ? runAutocannon : runWrk;
  const turn = load === 'wrk' ? 1 : seconds;
  const turns = Math.max(1, Math.round(seconds / turn));
  const path = '/hello?name=world';
  const sides = { one: '1', many: 'auto' };
  const rps = { one: [], many: [] };
  const cpu = { one: [], many: [] };
  const runs = { one: [], many: [] };
  for (let round = 0; round < rounds; round++) {
    const servers = {};
    try {
      for (const [side, workers] of Object.entries(sides))
        servers[side] = await startCli({ cli, project, logFile, args: ['--workers', workers] });
      if (warmup > 0)
        for (const side of Object.keys(sides))
          await runLoad({ url: servers[side].url + path, connections: 64, seconds: warmup, pin: false });
      const totals = { one: { requests: 0, seconds: 0, cpu: 0 }, many: { requests: 0, seconds: 0, cpu: 0 } };
      for (let t = 0; t < turns; t++) {
        for (const side of (round + t) % 2 === 0 ? ['one', 'many'] : ['many', 'one']) {
          const before = servers[side].cpuMicros();
          const run = await runLoad({ url: servers[side].url + path, connections: 64, seconds: turn, pin: false });
          totals[side].cpu += servers[side].cpuMicros() - before;
          totals[side].requests += run.requests;
          totals[side].seconds += run.requests / run.rps;
          runs[side].push(run);
        }
      }
      for (const side of Object.keys(sides)) {
        rps[side].push(totals[side].requests / totals[side].seconds);
        cpu[side].push(totals[side].cpu / totals[side].requests);
      }
      progress(
        `  round ${round + 1}: 1 worker ${Math.round(rps.one.at(-1))} req/s ${cpu.one.at(-1).toFixed(1)} µs CPU/req; ` +
          `${n} workers ${Math.round(rps.many.at(-1))} req/s ${cpu.many.at(-1).toFixed(1)} µs CPU/req`,
      );
    } finally {
      for (const server of Object.values(servers)) await server.stop();
    }
  }
  const problems = problemsOf(runs.one, runs.many);
  const projected = median(cpu.many.map((value, i) => (n * cpu.one[i]) / value));
  const note = `${n} workers (os.availableParallelism()); nothing pinned, the load generator shares the ${n} cores; projected on ${n} free cores: ${projected.toFixed(2)}×`;
  return [
    ratioRow({
      id: 'workers',
      benchmark: WORKERS_BENCHMARK,
      baseline: WORKERS_BASELINE,
      unit: 'req/s',
      subject: rps.many,
      base: rps.one,
      goal: undefined,
      problems,
      // The CPU column reads "what a quiet machine would show": n workers on n free cores serve
      // n × (1-worker CPU ÷ n-worker CPU per request) the 1-worker rate, which is what dividing
      // the n-worker CPU per request by n before the usual base ÷ subject gives.
      cpu: { subject: cpu.many.map((value) => value / n), base: cpu.one },
      note,
    }),
    ratioRow({
      id: 'workers-cpu',
      benchmark: WORKERS_CPU_BENCHMARK,
      baseline: WORKERS_BASELINE,
      unit: 'µs',
      subject: cpu.many,
      base: cpu.one,
      goal: undefined,
      problems,
      note: 'CPU time of the primary and every worker (utime + stime from /proc) over the turns, per request answered',
    }),
  ];
}
