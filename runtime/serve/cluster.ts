/**
 * `cloudfn start --workers <n|auto>`: n processes serving the same port with node:cluster.
 * The primary checks and compiles the functions once (so a mistake is one line, not n), forks
 * the workers, restarts one that crashes after it served, and on SIGTERM/SIGINT asks each to
 * drain and waits for them (a second signal kills them). Workers share the primary's socket.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { Logger } from '../log/logger.js';
import { RUNTIME_FUNCTION } from '../log/record.js';
import { createJsonSink } from '../log/sinks.js';
import { aggregateForWorkers } from '../metrics/cluster.js';
import { onParentGone } from './parent-gone.js';
import type { RunningServer } from './start.js';
import { sendToWorker } from './worker-message.js';
import { youngGenerationArgv } from './young-generation.js';

/** The message a primary sends a worker to drain and exit. */
export const SHUTDOWN_MESSAGE = 'cloudfn:shutdown';
/** The primary's parent went away: finish the requests in flight without the lame-duck period. */
export const SHUTDOWN_NOW_MESSAGE = 'cloudfn:shutdown-now';
/** Most workers; beyond this a typo (`--workers 800`) is more likely than a need. */
export const MAX_WORKERS = 256;
/** A worker that crashes this often gives up the restarts: something is wrong for good. */
const CRASH_LIMIT = 5;
const CRASH_WINDOW_MS = 60_000;
/** Hidden from esbuild, as in metrics/registry.ts: bundles do not run a primary. */
const PROM_CLIENT = 'prom-client';

/**
 * Reads `--workers`: a whole number from 1, or `auto` for one per CPU.
 * @example parseWorkers('auto') // os.availableParallelism()
 */
export function parseWorkers(value: string): number {
  if (value === 'auto') return availableParallelism();
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_WORKERS)
    throw new TypeError(
      `--workers must be a whole number from 1 to ${MAX_WORKERS}, or auto (one per CPU), got ${JSON.stringify(value)}`,
    );
  return n;
}

/**
 * Writes whole lines of at most PIPE_BUF (4096) bytes per write: such a write to a pipe is
 * atomic, so the lines of several processes never interleave (a longer line cannot be).
 * @example createJsonSink(lineAtomicWriter())
 */
export function lineAtomicWriter(
  write: (text: string) => void = (text) => process.stdout.write(text),
): (text: string) => void {
  const PIPE_BUF = 4096;
  return (text) => {
    if (Buffer.byteLength(text) <= PIPE_BUF) return write(text);
    let chunk = '';
    for (const line of text.split(/(?<=\n)/)) {
      if (chunk !== '' && Buffer.byteLength(chunk) + Buffer.byteLength(line) > PIPE_BUF) {
        write(chunk);
        chunk = '';
      }
      chunk += line;
    }
    if (chunk !== '') write(chunk);
  };
}

/**
 * The logger of a process of the cluster: JSON lines written whole.
 * @example startProject(root, { logger: clusterLogger() })
 */
export function clusterLogger(): Logger {
  return new Logger(createJsonSink(lineAtomicWriter()));
}

/** Options of `runPrimary`. */
export interface PrimaryOptions {
  workers: number;
  /** @default JSON lines on stdout */
  logger?: Logger;
  /**
   * Metrics are on: answer the workers' requests for the sum of their series (a scrape reaches
   * one worker; docs/observability.md#metrics). @default false
   */
  metrics?: boolean;
  /**
   * Also drain and stop when the parent process goes away, as on SIGTERM (`cloudfn start` sets
   * it when npm started it: npm killed by its PID passes no signal on). @default false
   */
  exitWithParent?: boolean;
}

/**
 * Forks and supervises the workers; resolves with the exit code once all of them have ended
 * (0 after a clean shutdown, 1 when a worker failed to start or kept crashing).
 * @example process.exitCode = await runPrimary({ workers: 4 })
 */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const logger = options.logger ?? clusterLogger();
  const line = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void =>
    logger.line(level, '', RUNTIME_FUNCTION, msg, { pid: process.pid, ...fields });
  const listening = new Set<Worker>();
  const crashes: number[] = [];
  let stopping = false;
  let failed = false;
  const stopMetrics = options.metrics === true ? aggregateForWorkers(() => import(PROM_CLIENT)) : undefined;

  return new Promise((resolve) => {
    const finish = (): void => {
      if (Object.keys(cluster.workers ?? {}).length > 0) return;
      stopMetrics?.();
      stopWatchingParent?.();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      logger.flush();
      resolve(failed ? 1 : 0);
    };
    // What the workers were asked, sent again to a worker that starts listening afterwards.
    let stopMessage = SHUTDOWN_MESSAGE;
    const stopWorker = (worker: Worker): void => {
      // A worker that has not connected yet, or whose channel closed as it exited, cannot
      // take the message; a signal stops it too.
      const signal = (): void => void worker.process.kill('SIGTERM');
      if (!sendToWorker(worker, stopMessage, signal)) signal();
    };
    const stopAll = (message = SHUTDOWN_MESSAGE): void => {
      stopping = true;
      stopMessage = message;
      for (const worker of Object.values(cluster.workers ?? {})) if (worker !== undefined) stopWorker(worker);
      finish();
    };
    function onSignal(signal: NodeJS.Signals): void {
      if (stopping) {
        line('warn', `${signal} again: killing the workers`);
        failed = true;
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
        return;
      }
      line(
        'info',
        `${signal} received: asking ${Object.keys(cluster.workers ?? {}).length} workers to finish their requests`,
      );
      stopAll();
    }
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    const stopWatchingParent =
      options.exitWithParent === true
        ? onParentGone(() => {
            if (stopping) return;
            line('info', 'the parent process exited: asking the workers to finish their requests');
            stopAll(SHUTDOWN_NOW_MESSAGE);
          })
        : undefined;

    cluster.setupPrimary({
      execArgv: youngGenerationArgv(process.execArgv, process.versions.node, process.env.NODE_OPTIONS),
    });
    const fork = (): void => {
      const worker = cluster.fork();
      worker.once('listening', () => {
        listening.add(worker);
        // Asked to stop while this worker was still loading: a message that reached it before
        // it listened for messages was lost, and the primary would wait for it forever.
        if (stopping) stopWorker(worker);
      });
      // Sends go through sendToWorker; anything else the IPC channel reports is logged, since
      // an unhandled 'error' would end the primary and, with it, every worker.
      worker.on('error', (error: Error) => line('warn', `worker ${worker.process.pid}: ${error.message}`));
    };
    cluster.on('exit', (worker, code, signal) => {
      const served = listening.delete(worker);
      if (stopping) {
        if (code !== 0 && code !== null) failed = true;
        return finish();
      }
      const how = signal ?? `code ${code}`;
      if (!served) {
        // It never listened: a start-up error it has printed. Every worker would hit it.
        line('error', `worker ${worker.process.pid} exited (${how}) before serving; stopping`);
        failed = true;
        return stopAll();
      }
      const now = Date.now();
      crashes.push(now);
      while (crashes.length > 0 && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
      if (crashes.length >= CRASH_LIMIT) {
        line(
          'error',
          `worker ${worker.process.pid} exited (${how}); ${crashes.length} crashes in ${CRASH_WINDOW_MS / 1000} s, stopping`,
        );
        failed = true;
        return stopAll();
      }
      line('warn', `worker ${worker.process.pid} exited (${how}); starting another`);
      fork();
    });
    line('info', `starting ${options.workers} workers`, { workers: options.workers });
    for (let i = 0; i < options.workers; i++) fork();
  });
}

/**
 * Runs the server of one worker: `start` serves (without its own signal handling), and a
 * signal or the primary's message drains it and exits 0. A start-up error is printed as one
 * line and exits 1, which the primary reads as "do not restart".
 * @example await runWorker(() => startProject(root, { handleSignals: false, logger: clusterLogger() }))
 */
export async function runWorker(
  start: () => Promise<RunningServer>,
  formatError: (error: unknown) => string,
): Promise<void> {
  // Listen before starting: the primary may ask every worker to stop while this one is still
  // loading its functions (its parent went, or a signal), and a message nobody listens for is
  // lost, which left the worker serving and the primary waiting for it forever.
  let running: RunningServer | undefined;
  let stopping = false;
  // Without a lame-duck period when nothing balances traffic to this worker any more.
  let now = false;
  const drainAndExit = (server: RunningServer): void =>
    void (now ? server.close() : server.drain()).then(() => process.exit(0));
  const stop = (): void => {
    // Ctrl-C reaches every process of the group, and the primary sends its message too: once is enough.
    if (stopping) return;
    stopping = true;
    if (running !== undefined) drainAndExit(running);
  };
  const stopNow = (): void => {
    now = true;
    stop();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('message', (message) => {
    if (message === SHUTDOWN_MESSAGE) stop();
    else if (message === SHUTDOWN_NOW_MESSAGE) stopNow();
  });
  // The primary went away without a word: stop rather than serve unsupervised.
  process.on('disconnect', stopNow);
  try {
    running = await start();
  } catch (error) {
    process.stderr.write(`cloudfn: ${formatError(error)}\n`);
    process.exit(1);
  }
  // Asked to stop while starting: drain now (the health paths say 503 for the lame-duck period).
  if (stopping) drainAndExit(running);
}
