/**
 * One service's `cloudfn dev` server as a child process, supervised by the `cloudfn dev` the
 * user ran (one folder) or by a session (several). A function may end its process
 * (`process.exit(3)`, or a library that does): the child says which function, in a note
 * (exit-note.ts), and this parent starts it again on the port it served on, at once the first
 * time, then after a doubling wait while it keeps ending (`RESTART_LIMIT` times within
 * `RESTART_WINDOW_MS`), then on the next change of its files. A process that ends before it
 * served (a bad config, a function whose module exits as it loads) starts again on the next
 * change; with one folder, the first start's failure ends the command, as before. A process
 * asked to stop (a signal, Ctrl-C) is not started again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_READY, EXIT_NOTE_VAR, type ExitNote, RESTARTED_VAR } from './exit-note.js';
import { TreeWatcher } from './watch-tree.js';

/** Ends counted within the window before the process waits for a change. */
export const RESTART_LIMIT = 5;
export const RESTART_WINDOW_MS = 60_000;
/** The wait before the second start within the window; it doubles after. The first is at once. */
export const SECOND_RESTART_MS = 500;

/** What the supervisor is given. */
export interface DevProcessOptions {
  /** The cloudfn CLI the child runs. */
  readonly cli: string;
  /** The service's folder: its first argument, and what is watched while it waits for a change. */
  readonly root: string;
  /** The arguments after the folder, without `--port`. */
  readonly args: readonly string[];
  /** `--port` of the first start; later starts take the port it served on. */
  readonly port: number | string | undefined;
  /** Its environment. */
  readonly env: NodeJS.ProcessEnv;
  /** `inherit`: its lines go to this process's terminal; `pipe`: `onSpawn` reads them. */
  readonly output: 'inherit' | 'pipe';
  /** Called with each child as it starts. @default nothing */
  readonly onSpawn?: (child: ChildProcess) => void;
  /** Where the supervisor's own lines go, e.g. `stopped (exit code 3); starting it again now`. */
  readonly say: (line: string) => void;
  /** Whether a failure of the first start ends the supervision (one folder: the command exits with it). */
  readonly firstFailureEnds: boolean;
  /** Words added to a stop line, e.g. `; the other services keep running`. @default '' */
  readonly othersNote?: string;
}

/** A supervised dev server. */
export interface DevProcess {
  /** Resolves with its last exit code once it ends for good (a stop, or a first start that failed). */
  readonly ended: Promise<number>;
  /**
   * Stops the supervision and the process, sending it `signal` (the one this parent got, so it
   * says which; a second one ends it at once, as a second Ctrl-C does); resolves once it has exited.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function readNote(file: string): ExitNote | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ExitNote;
  } catch {
    return undefined;
  }
}

/**
 * Starts `cloudfn dev <root>` as a child and keeps it serving.
 * @example const dev = superviseDevProcess({ cli, root, args: [], port: 8000, env: process.env, output: 'inherit', say: console.log, firstFailureEnds: true })
 */
export function superviseDevProcess(options: DevProcessOptions): DevProcess {
  const notes = mkdtempSync(join(tmpdir(), 'cloudfn-dev-notes-'));
  const others = options.othersNote ?? '';
  let port: number | string | undefined = options.port;
  let child: ChildProcess | undefined;
  let runs = 0;
  let served = false;
  let stopping = false;
  let reason: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let watcher: TreeWatcher | undefined;
  const ends: number[] = [];
  let finish: (code: number) => void = () => {};
  const ended = new Promise<number>((resolve) => {
    finish = (code) => {
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      watcher?.close();
      rmSync(notes, { recursive: true, force: true });
      resolve(code);
    };
  });

  const start = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    watcher?.close();
    watcher = undefined;
    if (stopping) return;
    const note = join(notes, `${++runs}.json`);
    let ready = false;
    const run = spawn(
      process.execPath,
      [options.cli, 'dev', options.root, ...(port === undefined ? [] : ['--port', String(port)]), ...options.args],
      {
        env: { ...options.env, [EXIT_NOTE_VAR]: note, [RESTARTED_VAR]: reason ?? '' },
        stdio: ['ignore', options.output, options.output, 'ipc'],
        // Its own process group: a Ctrl-C reaches this parent alone, which stops it once
        // (a second signal would end it at once, without stopping its components).
        detached: true,
      },
    );
    child = run;
    run.on('message', (message: { type?: string; port?: number }) => {
      if (message?.type !== DEV_READY) return;
      ready = served = true;
      port = message.port ?? port;
    });
    run.once('exit', (code, signal) => ended_(ready, code, signal, readNote(note)));
    options.onSpawn?.(run);
  };

  const waitForChange = (): void => {
    watcher = new TreeWatcher(() => {
      if (stopping || watcher === undefined) return;
      options.say(`files changed: starting it again`);
      start();
    });
    watcher.watchTree(options.root);
  };

  const ended_ = (ready: boolean, code: number | null, signal: NodeJS.Signals | null, note?: ExitNote): void => {
    child = undefined;
    const how = signal ?? `exit code ${code}`;
    if (stopping) return finish(code ?? 0);
    // Asked to stop while serving (Ctrl-C reaches every process of the terminal): so is this one.
    if (note?.by === 'stop' && ready) return finish(code ?? 0);
    if (!served && options.firstFailureEnds) return finish(code ?? 1);
    reason = note?.by === 'exit' ? note.reason : `the dev server's process ended (${how})`;
    if (!ready) {
      options.say(`stopped (${how})${others}; it starts again when a file under ${options.root} changes`);
      return waitForChange();
    }
    const now = Date.now();
    ends.push(now);
    while (ends.length > 0 && now - ends[0]! > RESTART_WINDOW_MS) ends.shift();
    if (ends.length > RESTART_LIMIT) {
      options.say(
        `stopped (${how})${others}; it ended ${ends.length} times within ${RESTART_WINDOW_MS / 1000} s, so it starts again when a file under ${options.root} changes`,
      );
      return waitForChange();
    }
    const delay = ends.length === 1 ? 0 : SECOND_RESTART_MS * 2 ** (ends.length - 2);
    options.say(`stopped (${how})${others}; starting it again ${delay === 0 ? 'now' : `in ${delay} ms`}`);
    if (delay === 0) return start();
    // A save during the wait starts it at once.
    waitForChange();
    timer = setTimeout(start, delay);
  };

  start();
  return {
    ended,
    stop: async (signal = 'SIGTERM') => {
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      watcher?.close();
      if (child === undefined) finish(0);
      else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await ended;
    },
  };
}
