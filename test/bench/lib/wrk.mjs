/**
 * Running wrk (the C load generator from Debian) and reading its report, latency percentiles
 * included (`--latency`). wrk is used rather than autocannon because on a 2-core machine a
 * JavaScript load generator runs out of CPU before node:http does, which would flatten every
 * ratio towards 1.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinned } from './cpu.mjs';

const LUA = fileURLToPath(new URL('../wrk/request.lua', import.meta.url));

/**
 * Runs wrk against `url` and resolves with requests/s, errors and latency (mean and percentiles).
 * @param {object} o
 * @param {string} o.url
 * @param {number} o.connections
 * @param {number} o.seconds
 * @param {{ method?: string, bodyFile?: string, contentType?: string }} [o.request] what to send (GET when absent)
 * @param {boolean} [o.pin] keep wrk on its own core when pinning is on @default true
 */
export function runWrk({ url, connections, seconds, request = {}, pin = true }) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '10s', '-s', LUA, url];
  const env = {
    ...process.env,
    BENCH_METHOD: request.method ?? 'GET',
    BENCH_BODY_FILE: request.bodyFile ?? '',
    BENCH_CONTENT_TYPE: request.contentType ?? '',
  };
  const [command, argv] = pin ? pinned('load', 'wrk', args) : ['wrk', args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${err || out}`));
      try {
        resolve(parseWrk(out));
      } catch (error) {
        reject(error);
      }
    });
  });
}

const UNITS = { us: 1e-3, ms: 1, s: 1000, m: 60_000 };

/** Milliseconds of a wrk duration such as `1.47ms`, `812.00us` or `1.20s`. */
function ms(value, unit) {
  return Number(value) * UNITS[unit];
}

/**
 * Reads wrk's text report (wrk 4.1). `percentilesMs` holds the `Latency Distribution` lines
 * that `--latency` prints (50, 75, 90 and 99), and `p99Ms` the 99th; both are absent (NaN for
 * `p99Ms`) in a report made without `--latency`.
 */
export function parseWrk(text) {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const total = /(\d+) requests in/.exec(text);
  if (rps === null || total === null) throw new Error(`cannot read the wrk report:\n${text}`);
  const latency = /Latency\s+([\d.]+)(us|ms|s|m)\b/.exec(text);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const percentilesMs = {};
  const distribution = text.indexOf('Latency Distribution');
  if (distribution !== -1) {
    for (const [, p, value, unit] of text
      .slice(distribution)
      .matchAll(/^\s+(\d+(?:\.\d+)?)%\s+([\d.]+)(us|ms|s|m)\s*$/gm))
      percentilesMs[p] = ms(value, unit);
  }
  return {
    rps: Number(rps[1]),
    requests: Number(total[1]),
    latencyMs: latency === null ? Number.NaN : ms(latency[1], latency[2]),
    percentilesMs,
    p99Ms: percentilesMs['99'] ?? Number.NaN,
    non2xx: non2xx === null ? 0 : Number(non2xx[1]),
    socketErrors: sockets === null ? 0 : sockets.slice(1).reduce((sum, n) => sum + Number(n), 0),
  };
}
