/**
 * Starting a server under test in its own process (pinned to its own core when possible),
 * asking it for its memory, and stopping it.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinned } from './cpu.mjs';
import { ablatedDist, partsOf } from './ablation-variants.mjs';

/** The node flags of a server measured by the allocation rows. */
export const ALLOCATION_FLAGS = ['--expose-gc', '--no-concurrent-array-buffer-sweeping'];

const SCRIPT = fileURLToPath(new URL('../servers/http-server.mjs', import.meta.url));

/**
 * Starts `node servers/http-server.mjs <kind>`; stdout (cloudfn's log lines) goes to `logFile`.
 * A kind `cloudfn~log,trace` is cloudfn with those parts of its request path turned off
 * (a patched copy of dist/ made by ablation-variants.mjs; test/bench/ablation.mjs), and a kind
 * `cloudfn@--max-semi-space-size=16` runs node with that flag (several: `@a@b`), and a kind
 * `cloudfn#/path/to/checkout` runs the server of another built checkout (a before/after pair;
 * the path may hold neither `@` nor `~`).
 * With `allocation`, node runs as the allocation rows need (lib/allocation.mjs): `--expose-gc`,
 * to collect before the first mark, and `--no-concurrent-array-buffer-sweeping`, so that Buffers
 * freed by a collection show in its statistics.
 * Resolves once it listens, with its port, a `stats()`, an `ask(message)` and a `stop()`.
 */
export function startServer(kind, logFile, { allocation = false } = {}) {
  const [treeSpec, ...nodeFlags] = kind.split('@');
  const [spec, tree] = treeSpec.split('#');
  const [base, ablate] = spec.split('~');
  const script = tree === undefined ? SCRIPT : join(tree, 'test/bench/servers/http-server.mjs');
  const out = openSync(logFile, 'a');
  const flags = allocation ? [...ALLOCATION_FLAGS, ...nodeFlags] : nodeFlags;
  const [command, args] = pinned('server', process.execPath, [...flags, script, base]);
  const env = { ...process.env, NODE_ENV: 'production', BENCH_LOG_FILE: logFile };
  delete env.BENCH_CLOUDFN_DIST;
  if (ablate !== undefined) env.BENCH_CLOUDFN_DIST = variant(ablate);
  const child = spawn(command, args, {
    stdio: ['ignore', out, 'pipe', 'ipc'],
    // BENCH_LOG_FILE: where a peer with its logger on (fastify-log) writes its lines.
    env,
  });
  closeSync(out);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const fail = (why) => reject(new Error(`the ${kind} server ${why}${stderr ? `:\n${stderr}` : ''}`));
    child.once('error', (error) => fail(`failed to start (${error.message})`));
    child.once('exit', (code) => fail(`exited with ${code} before listening`));
    child.once('message', ({ port }) => {
      child.removeAllListeners('exit');
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        stats: () => askStats(child),
        ask: (message) => ask(child, message),
        stop: () => stop(child),
      });
    });
  });
}

/** The variants made by this process, made once each (a copy of dist/ with patches). */
const variants = new Map();
function variant(list) {
  if (!variants.has(list)) variants.set(list, ablatedDist(partsOf(list)));
  return variants.get(list);
}

function askStats(child) {
  return ask(child, 'stats');
}

function ask(child, message) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
