/**
 * A project served by the real CLI, `node dist/src/cli/index.js start <root> ...`, in its own
 * process: started on a free port, ready once its health path answers 200, its RSS and the CPU
 * time of it and its children (the workers of `--workers`) read from /proc, and stopped by a
 * signal.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { freePort, getStatus } from './probe.mjs';

/**
 * Starts `cloudfn start <root> --port <free> --host 127.0.0.1 ...args`; stdout goes to `logFile`.
 * @param {{ cli: string, project: string, logFile: string, args?: string[], env?: Record<string, string> }} o
 *   `cli` is the path of dist/src/cli/index.js
 */
export async function startCli({ cli, project, logFile, args = [], env = {} }) {
  const port = await freePort();
  const out = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [cli, 'start', project, '--port', String(port), '--host', '127.0.0.1', ...args],
    {
      stdio: ['ignore', out, 'pipe'],
      env: { ...process.env, NODE_ENV: 'production', ...env },
    },
  );
  closeSync(out);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    const answer = await getStatus(`${url}/_cloudfn/health`);
    if (answer?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`cloudfn start exited with ${child.exitCode}:\n${stderr}`);
    if (performance.now() - started > 30_000) throw new Error(`cloudfn start did not answer within 30 s:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url,
    port,
    pid: child.pid,
    exited,
    stderr: () => stderr,
    /** Resident memory of the process in bytes. */
    rss: () => rssOf(child.pid),
    /** CPU time (user + system) of the process and its living children, in microseconds. */
    cpuMicros: () => treeCpuMicros(child.pid),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** VmRSS of a process, in bytes (0 once it is gone). */
export function rssOf(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line === undefined ? 0 : Number(line.replace(/\D+/g, '')) * 1024;
  } catch {
    return 0;
  }
}

let ticksPerSecond;
/** The kernel's clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces), so that
 * index 0 is the state, 1 the parent pid, 11 utime and 12 stime; undefined once it is gone.
 */
function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU time of `pid` and its direct children (a cluster primary and its workers), in
 * microseconds, from /proc (0 off Linux). The resolution is one clock tick, 10 ms at 100 Hz:
 * over a one-second turn of two busy processes that is under 1%.
 */
export function treeCpuMicros(pid) {
  const pids = [String(pid)];
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || entry === String(pid)) continue;
    if (statOf(entry)?.[1] === String(pid)) pids.push(entry);
  }
  let ticks = 0;
  for (const p of pids) {
    const fields = statOf(p);
    if (fields !== undefined) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks / clockTicks()) * 1e6;
}
