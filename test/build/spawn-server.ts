/** Starting a bundle (or the CLI) as a child process on port 0 and reading its start-up line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';

export interface Spawned {
  child: ChildProcess;
  url: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * Runs `node <args>` and resolves once a JSON line with `"url"` is printed.
 * @example const server = await spawnServer(['dist/hello/index.mjs'], { cwd })
 */
export function spawnServer(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; urlPattern?: RegExp },
): Promise<Spawned> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    // No lame-duck period unless a test asks for one: no balancer watches these servers.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CLOUDFN_DRAIN_DELAY: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start-up line within ${options.timeoutMs ?? 15000} ms\nstdout: ${out}\nstderr: ${err}`));
    }, options.timeoutMs ?? 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      const before = out;
      out += chunk.toString();
      const match = (options.urlPattern ?? /"url":"(http:\/\/[^"]+)"/).exec(out);
      if (match !== null && (options.urlPattern ?? /"url":"(http:\/\/[^"]+)"/).exec(before) === null) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1]!.replace('localhost', '127.0.0.1'),
          stdout: () => out,
          stderr: () => err,
          stop: (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
          exited,
        });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before serving\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/**
 * The pid a `{ pid }` function answers with, asked on a connection of its own: a cluster
 * balances connections, and fetch would keep one alive.
 * @example const pid = await pidOf(`${server.url}/pid`)
 */
export function pidOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve((JSON.parse(body) as { pid: number }).pid));
    }).on('error', reject);
  });
}
