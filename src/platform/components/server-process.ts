/**
 * One local component server's process: a port to listen on (the one used last time when it is
 * free, so GUI clients keep working), the wait until it accepts connections, the record that
 * lets another cloudfn process of the same app share it (`server.json`: pid, port, owner), and
 * the stop (SIGTERM, then SIGKILL after a bound).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';

/** What `server.json` of a component's folder holds while its server runs. */
export interface ServerRecord {
  /** The server's process. */
  readonly pid: number;
  readonly port: number;
  /** The cloudfn process that started it and stops it. */
  readonly owner: number;
}

/** Whether a program is on PATH. */
export const installed = (command: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** Whether a process exists and has not exited (a zombie has exited). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(0) is all there is
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `preferred` when it can be listened on, else a port the system picks. */
export function freePort(preferred?: number): Promise<number> {
  const attempt = (port: number): Promise<number | undefined> =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const got = (server.address() as { port: number }).port;
        server.close(() => resolve(got));
      });
    });
  return (async () => (preferred !== undefined ? await attempt(preferred) : undefined) ?? (await attempt(0))!)();
}

/** The running server a record names, when its process is alive and its port answers. */
export async function readLiveRecord(dir: string): Promise<ServerRecord | undefined> {
  const file = join(dir, 'server.json');
  if (!existsSync(file)) return undefined;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as ServerRecord;
    if (alive(record.pid) && (await accepts(record.port))) return record;
  } catch {
    // A torn or foreign file: start afresh.
  }
  rmSync(file, { force: true });
  return undefined;
}

export const writeRecord = (dir: string, record: ServerRecord): void =>
  writeFileSync(join(dir, 'server.json'), `${JSON.stringify(record)}\n`);

/** Starts `command`, its output appended to `log`, and waits until `port` accepts connections. */
export async function spawnServer(
  command: string,
  args: readonly string[],
  options: { port: number; log: string; timeoutMs: number },
): Promise<ChildProcess> {
  const fd = openSync(options.log, 'a');
  const child = spawn(command, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `${command} exited with ${signal ?? `code ${code}`}`;
  });
  child.once('error', (error) => {
    exited = `${command} could not run: ${error.message}`;
  });
  const deadline = Date.now() + options.timeoutMs;
  while (!(await accepts(options.port))) {
    if (exited !== undefined) throw new Error(exited);
    if (Date.now() > deadline) {
      await stopProcess(child.pid, 2_000);
      throw new Error(`${command} did not accept connections on port ${options.port} within ${options.timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

/** SIGTERM (a clean shutdown that keeps the data), then SIGKILL when it takes over `graceMs`. */
export async function stopProcess(pid: number | undefined, graceMs: number): Promise<void> {
  if (pid === undefined || !alive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
