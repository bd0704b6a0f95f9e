/**
 * `cloudfn dev`'s type checker: a child process that watches the project with its own
 * TypeScript, beside the server: watch-script.ts on the compiler API (5.x, 6.x), or the
 * project's `tsc` rerun on each save (7 and later, see tsc-watch-script.ts). It never blocks a reload: reloads compile with
 * esbuild, which ignores types, and the child runs at a lower priority on its own core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import type { TypeDiagnostic } from './format.js';
import { selfTypePaths } from './self-types.js';
import { parseTscOutput, TSC_FLAGS, tscProject } from './tsc-cli.js';
import { TSC_WATCH_SCRIPT } from './tsc-watch-script.js';
import { WATCH_SCRIPT } from './watch-script.js';

/** One finished check. */
export interface TypeReport {
  diagnostics: TypeDiagnostic[];
  /** How long the check took. */
  ms: number;
}

/** Options of `watchTypes`. */
export interface WatchTypesOptions {
  root: string;
  /** From `findTypeScript`. */
  tsconfig: string;
  typescript: string;
  /** From `findTypeScript`: `cli` runs `tsc` (the script at `tsc`) instead of the API. */
  engine?: 'api' | 'cli';
  tsc?: string;
  /** Called after every check, with its errors (none once fixed). */
  onReport(report: TypeReport): void;
  /** Called when a check starts (a file changed). */
  onChecking?(): void;
  /** Called if the checker stops on its own (a crash), with what it printed. */
  onExit?(detail: string): void;
}

/** A running checker. */
export interface TypeWatcher {
  child: ChildProcess;
  /** Stops the checker; resolves once it exited. */
  close(): Promise<void>;
}

/**
 * Starts watching `root`'s types in a child process.
 * @example const watcher = watchTypes({ root, ...found, onReport: (r) => show(r.diagnostics) })
 */
export function watchTypes(options: WatchTypesOptions): TypeWatcher {
  const child =
    options.engine === 'cli' && options.tsc !== undefined ? spawnTsc(options, options.tsc) : spawnApi(options);
  try {
    // Requests and reloads come first: the checker gets what the server leaves.
    if (child.pid !== undefined) setPriority(child.pid, 10);
  } catch {
    // Not permitted on some systems; the check is still off the server's thread.
  }
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString();
  });
  let closing = false;
  child.on('message', (message: { type: string; diagnostics?: TypeDiagnostic[]; ms?: number }) => {
    if (message.type === 'checking') options.onChecking?.();
    else if (message.type === 'report')
      options.onReport({ diagnostics: message.diagnostics ?? [], ms: message.ms ?? 0 });
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!closing)
        options.onExit?.(
          `exited (${signal ?? `code ${String(code)}`})${stderr === '' ? '' : `: ${stderr.trim().split('\n')[0]}`}`,
        );
      resolve();
    }),
  );
  // The server must be able to exit without waiting for the checker.
  child.unref();
  (child as unknown as { channel?: { unref(): void } }).channel?.unref();
  return {
    child,
    close() {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The API checker (watch-script.ts), which reports over IPC. */
function spawnApi(options: WatchTypesOptions): ChildProcess {
  return spawn(process.execPath, ['-e', WATCH_SCRIPT], {
    cwd: options.root,
    // Without the parent's NODE_OPTIONS: an --inspect there must not open a second debugger.
    env: {
      ...process.env,
      CLOUDFN_TS_PATH: options.typescript,
      CLOUDFN_TS_ROOT: options.root,
      CLOUDFN_TS_CONFIG: options.tsconfig,
      CLOUDFN_TS_BUILDINFO: join(options.root, '.cloudfn', 'tsc', 'tsconfig.tsbuildinfo'),
      CLOUDFN_TS_SELF_PATHS: JSON.stringify(selfTypePaths(options.root) ?? null),
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
}

/** The `tsc` checker (tsc-watch-script.ts), whose output is read here. */
function spawnTsc(options: WatchTypesOptions, tsc: string): ChildProcess {
  const project = tscProject({
    root: options.root,
    tsconfig: options.tsconfig,
    tsc,
    selfPaths: selfTypePaths(options.root),
  });
  const child = spawn(process.execPath, ['-e', TSC_WATCH_SCRIPT], {
    cwd: options.root,
    env: {
      ...process.env,
      CLOUDFN_TS_ROOT: options.root,
      CLOUDFN_TSC_ARGS: JSON.stringify([tsc, '-p', project, ...TSC_FLAGS]),
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.on('message', (message: { type: string; output?: string; ms?: number }) => {
    if (message.type === 'output')
      child.emit('message', {
        type: 'report',
        diagnostics: parseTscOutput(message.output ?? '', options.root),
        ms: message.ms ?? 0,
      });
  });
  return child;
}
