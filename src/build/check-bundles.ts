/**
 * `cloudfn build --check`: each bundle is started as it will run in production (`node
 * --enable-source-maps <bundle>` on a free port), asked for its health path, and stopped with
 * SIGTERM; it passes when it served, answered 200 and exited 0. This loads every module of
 * the bundle, so a missing external package or a failing import shows here, not in production.
 */
import { spawn } from 'node:child_process';
import { DEFAULT_HEALTH_PATH } from '../../runtime/options.js';

/** The outcome of checking one bundle. */
export interface BundleCheck {
  file: string;
  ok: boolean;
  /** Why it failed: what the bundle printed on stderr, or what went wrong. */
  problem?: string;
  ms: number;
}

/**
 * Starts, probes and stops one bundle.
 * @example const result = await checkBundle('dist/hello/index.mjs')
 */
export function checkBundle(file: string, timeoutMs = 15_000): Promise<BundleCheck> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', file], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CLOUDFN_HEALTH_PATH: DEFAULT_HEALTH_PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let problem: string | undefined;
    let probed = false;
    const timer = setTimeout(() => {
      problem ??= `did not start within ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    const fail = (why: string): void => {
      problem ??= why;
      child.kill('SIGKILL');
    };
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (probed) return;
      // The start-up line is JSON with the bound url.
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stdout);
      if (match === null) return;
      probed = true;
      fetch(match[1] + DEFAULT_HEALTH_PATH).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) return fail(`its health path answered ${res.status}`);
          child.kill('SIGTERM');
        },
        (error: unknown) => fail(`its health path could not be reached: ${String(error)}`),
      );
    });
    child.on('error', (error) => fail(String(error)));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = Math.round(performance.now() - started);
      if (problem === undefined && !probed) problem = `exited (${signal ?? `code ${code}`}) before serving`;
      if (problem === undefined && code !== 0)
        problem = `exited with ${signal ?? `code ${code}`} after SIGTERM instead of 0`;
      if (problem !== undefined && stderr.trim() !== '') problem += `:\n${stderr.trim()}`;
      resolve(problem === undefined ? { file, ok: true, ms } : { file, ok: false, problem, ms });
    });
  });
}
