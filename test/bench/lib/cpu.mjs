/**
 * Where the processes of a benchmark run. With two cores or more and `taskset` present, each
 * server under test gets the last core and the load generator the first, so the two sides of
 * a ratio never fight over one core; `BENCH_PIN=0` turns this off. On a 2-core machine the
 * load generator and the helper processes of the kernel still share the machine with the
 * server: the table says so.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';
import { readFileSync } from 'node:fs';

let tasksetPresent;
function hasTaskset() {
  if (tasksetPresent === undefined) {
    try {
      execFileSync('taskset', ['--version'], { stdio: 'ignore' });
      tasksetPresent = true;
    } catch {
      tasksetPresent = false;
    }
  }
  return tasksetPresent;
}

/** True when servers and the load generator are pinned to separate cores. */
export function pinning() {
  return process.env.BENCH_PIN !== '0' && availableParallelism() >= 2 && hasTaskset();
}

/**
 * The command line for `command args` run in `role` ('server' or 'load'), with taskset in front
 * when pinning is on.
 */
export function pinned(role, command, args) {
  if (!pinning()) return [command, args];
  const core = role === 'server' ? availableParallelism() - 1 : 0;
  return ['taskset', ['-c', String(core), command, ...args]];
}

/** The machine, as docs/performance.md shows it. */
export function machine() {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line !== undefined) model = line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // Not Linux: os.cpus() has the model too.
  }
  return {
    nproc: availableParallelism(),
    cpu: model,
    node: process.version,
    pinned: pinning(),
  };
}
