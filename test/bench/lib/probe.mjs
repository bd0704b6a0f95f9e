/**
 * Timing a server from `spawn` to its first 200: the probe retries every millisecond while
 * the port refuses connections.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { treeCpuMicros } from './cli-server.mjs';
import { pinned } from './cpu.mjs';

/** A port that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the status of one GET, or undefined when the connection failed. */
export function getStatus(url) {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers }));
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** Polls `url` until it answers 200 or `timeoutMs` passes; resolves with the time of the answer. */
export async function waitFor200(url, timeoutMs, startedAt) {
  for (;;) {
    const answer = await getStatus(url);
    if (answer?.status === 200) return performance.now();
    if (performance.now() - startedAt > timeoutMs)
      throw new Error(
        `${url} did not answer 200 within ${timeoutMs} ms (last: ${answer?.status ?? 'connection refused'})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Runs `node <args>` with PORT set, and resolves with the milliseconds from spawn to the
 * first 200 of GET `path`; the process is killed afterwards.
 */
export async function timeToFirst200(args, path, env = {}) {
  return (await costToFirst200(args, path, env)).ms;
}

/**
 * `timeToFirst200`, and the CPU milliseconds the server's process used until then (from
 * /proc, in clock ticks of usually 10 ms; 0 where /proc is missing): on a loaded machine the
 * CPU time moves far less than the wall time. `stop` is the signal that ends it afterwards.
 */
export async function costToFirst200(args, path, env = {}, { stop = 'SIGKILL' } = {}) {
  const port = await freePort();
  const [command, argv] = pinned('server', process.execPath, args);
  const startedAt = performance.now();
  const child = spawn(command, argv, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const done = await Promise.race([
      waitFor200(`http://127.0.0.1:${port}${path}`, 10_000, startedAt),
      exited.then((code) => {
        throw new Error(`${args.join(' ')} exited with ${code} before answering:\n${stderr}`);
      }),
    ]);
    return { ms: done - startedAt, cpuMs: treeCpuMicros(child.pid) / 1000 };
  } finally {
    // SIGTERM lets a server exit cleanly (and write what it writes at exit, such as Node's
    // compile cache); SIGKILL, the default, stops it at once.
    child.kill(stop);
    await exited;
  }
}
