/**
 * Running wrk (the C load generator from Debian) and reading its report. wrk is used rather
 * than autocannon because on a 2-core machine a JavaScript load generator runs out of CPU
 * before node:http does, which would flatten every ratio towards 1.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinned } from './cpu.mjs';

const LUA = fileURLToPath(new URL('../wrk/request.lua', import.meta.url));

/**
 * Runs wrk against `url` and resolves with requests/s, errors and latency.
 * @param {object} o
 * @param {string} o.url
 * @param {number} o.connections
 * @param {number} o.seconds
 * @param {{ method?: string, bodyFile?: string, contentType?: string }} [o.request] what to send (GET when absent)
 * @param {boolean} [o.pin] keep wrk on its own core when pinning is on @default true
 */
export function runWrk({ url, connections, seconds, request = {}, pin = true }) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', LUA, url];
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

/** Reads wrk's text report (wrk 4.1). */
export function parseWrk(text) {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const total = /(\d+) requests in/.exec(text);
  if (rps === null || total === null) throw new Error(`cannot read the wrk report:\n${text}`);
  const latency = /Latency\s+([\d.]+)(us|ms|s|m)/.exec(text);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: Number(rps[1]),
    requests: Number(total[1]),
    latencyMs: latency === null ? Number.NaN : Number(latency[1]) * UNITS[latency[2]],
    non2xx: non2xx === null ? 0 : Number(non2xx[1]),
    socketErrors: sockets === null ? 0 : sockets.slice(1).reduce((sum, n) => sum + Number(n), 0),
  };
}
