/**
 * Watching a local component server that this process owns, and restarting it when it ends
 * without being asked to: the exit is reported at once (which component, its pid, how it
 * ended), and the server is started again on the same port with the same data folder after a
 * backoff (250 ms, then doubling), up to `RESTART_LIMIT` exits within `RESTART_WINDOW_MS`, after
 * which it is marked failed and left stopped. Its state (running, restarting, failed) is kept in
 * `<dir>/state.json` too, so a dev server that only uses it (a service of a session) can show it.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, stopProcess } from './server-process.js';

/** What a supervised component is doing. */
export type ComponentState = 'running' | 'restarting' | 'failed';

/** A component's state as `state.json` and the console hold it. */
export interface ComponentStatus {
  readonly state: ComponentState;
  /** How many times it was started again. */
  readonly restarts: number;
  /** How its server last ended: `SIGKILL`, `exit code 1`. */
  readonly lastExit?: string;
  readonly pid?: number;
}

/** One line about a component's life: an exit, a restart, a failure. */
export interface ComponentEvent {
  readonly name: string;
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly status: ComponentStatus;
}

/** Exits counted within the window before a component is given up on. */
export const RESTART_LIMIT = 5;
export const RESTART_WINDOW_MS = 60_000;
/** The first restart's delay; each further exit within the window doubles it. */
export const FIRST_BACKOFF_MS = 250;
/** How often a server this process adopted (not its child) is checked for life. */
const ADOPTED_POLL_MS = 500;

/** What the supervisor needs of the server it watches. */
export interface SupervisedServer {
  readonly name: string;
  readonly dir: string;
  readonly port: number;
  /** The log the server writes, named when it is given up on. */
  readonly log: string;
  /** Starts it again on the same port with the same data; resolves with its process. */
  restart(): Promise<ChildProcess>;
  /** Called with the new process once a restart accepts connections (its record is written there). */
  started(pid: number): void;
  readonly stopMs: number;
}

/** A supervised server: its status, and the stop that ends the supervision first. */
export interface Supervisor {
  status(): ComponentStatus;
  stop(): Promise<void>;
}

const STATE_FILE = 'state.json';

/** The status another process wrote for the component in `dir`, if any. */
export function readComponentStatus(dir: string): ComponentStatus | undefined {
  try {
    const status = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as ComponentStatus;
    return typeof status.state === 'string' ? status : undefined;
  } catch {
    return undefined;
  }
}

/** `SIGKILL` or `exit code 1`. */
const describeExit = (code: number | null, signal: NodeJS.Signals | null): string => signal ?? `exit code ${code}`;

/**
 * Watches `process` (a child of this process, or the pid of a server it adopted) and keeps the
 * server running until `stop`.
 * @example const supervisor = superviseServer(server, child, (event) => logger.line(event.level, '', 'runtime', event.message))
 */
export function superviseServer(
  server: SupervisedServer,
  first: ChildProcess | number,
  report: (event: ComponentEvent) => void,
): Supervisor {
  let status: ComponentStatus = {
    state: 'running',
    restarts: 0,
    pid: typeof first === 'number' ? first : first.pid!,
  };
  const exits: number[] = [];
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  let pending: Promise<void> | undefined;

  const set = (next: ComponentStatus): void => {
    status = next;
    try {
      writeFileSync(join(server.dir, STATE_FILE), `${JSON.stringify(status)}\n`);
    } catch {
      // The folder went away: the state is still kept here.
    }
  };
  const emit = (level: ComponentEvent['level'], message: string): void =>
    report({ name: server.name, level, message, status });

  const ended = (how: string): void => {
    if (stopping) return;
    const now = Date.now();
    exits.push(now);
    while (exits.length > 0 && now - exits[0]! > RESTART_WINDOW_MS) exits.shift();
    if (exits.length > RESTART_LIMIT) {
      set({ ...status, state: 'failed', lastExit: how });
      emit(
        'error',
        `component ${server.name} failed: it ended ${exits.length} times within ${RESTART_WINDOW_MS / 1000} s (last: ${how}); not restarted again. Its log is ${server.log}; restart cloudfn dev once it is fixed`,
      );
      return;
    }
    const delay = FIRST_BACKOFF_MS * 2 ** (exits.length - 1);
    set({ ...status, state: 'restarting', lastExit: how });
    emit(
      'warn',
      `component ${server.name} (pid ${status.pid}) ended (${how}); restarting it on port ${server.port} in ${delay} ms (restart ${exits.length} of at most ${RESTART_LIMIT} within ${RESTART_WINDOW_MS / 1000} s)`,
    );
    timer = setTimeout(() => {
      pending = restart().finally(() => {
        pending = undefined;
      });
    }, delay);
    timer.unref();
  };

  const restart = async (): Promise<void> => {
    timer = undefined;
    if (stopping) return;
    let child: ChildProcess;
    try {
      child = await server.restart();
    } catch (error) {
      if (stopping) return;
      ended(`the restart failed: ${(error as Error).message}`);
      return;
    }
    if (stopping) {
      await stopProcess(child.pid, server.stopMs);
      return;
    }
    server.started(child.pid!);
    set({ state: 'running', restarts: status.restarts + 1, lastExit: status.lastExit!, pid: child.pid! });
    emit('info', `component ${server.name} restarted on port ${server.port} (pid ${child.pid}), its data kept`);
    watch(child);
  };

  const watch = (target: ChildProcess | number): void => {
    if (typeof target !== 'number') {
      // Already ended (between accepting connections and here): treat it as now.
      if (target.exitCode !== null || target.signalCode !== null)
        return ended(describeExit(target.exitCode, target.signalCode));
      target.once('exit', (code, signal) => ended(describeExit(code, signal)));
      return;
    }
    // Not this process's child: no exit event, so its life is checked.
    poll = setInterval(() => {
      if (alive(target)) return;
      clearInterval(poll);
      poll = undefined;
      ended('unknown exit status, started by an earlier process');
    }, ADOPTED_POLL_MS);
    poll.unref();
  };

  set(status);
  watch(first);
  return {
    status: () => status,
    stop: async () => {
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      if (poll !== undefined) clearInterval(poll);
      await pending;
      if (status.state !== 'failed' && status.pid !== undefined) await stopProcess(status.pid, server.stopMs);
      rmSync(join(server.dir, STATE_FILE), { force: true });
    },
  };
}
