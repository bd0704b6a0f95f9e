/**
 * What the local servers share: a component that runs (its URL, the platform's variables for
 * it, whether this process stops it), and the one way each is started or shared. A server that
 * another cloudfn process of the same app started is shared, not started twice; one whose
 * starter has exited is adopted (this process stops it at the end). With `supervise`, a server
 * this process owns is watched and restarted when it ends (supervise.ts).
 */
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { type Account, readAccount, writeAccount } from './account.js';
import { createComponentError } from './errors.js';
import { alive, freePort, readLiveRecord, stopProcess, writeRecord } from './server-process.js';
import { type ComponentEnv, type ComponentName, componentEnv } from './settings.js';
import { rmSync } from 'node:fs';
import { type ComponentEvent, type ComponentStatus, superviseServer } from './supervise.js';

/** A component the session uses. */
export interface RunningComponent {
  readonly name: ComponentName;
  /** Its URL with the account, e.g. `redis://cloudfn:…@127.0.0.1:6379`. */
  readonly url: string;
  /** The platform's variables for it. */
  readonly env: ComponentEnv;
  /** The local server's folder (its data, log and account); undefined for a server given by URL. */
  readonly dir: string | undefined;
  /** Whether `stop` stops the server (this process started or adopted it). */
  readonly owned: boolean;
  /** Its state when this process supervises it (running, restarting, failed); undefined otherwise. */
  status(): ComponentStatus | undefined;
  stop(): Promise<void>;
}

/** How long a local server may take to accept connections, and how long to stop. */
export interface ServerTimes {
  readonly startMs: number;
  readonly stopMs: number;
}

/** What one kind of local server says of itself. */
export interface LocalServer {
  readonly name: 'redis' | 'mysql';
  /** Throws CLOUDFN_COMPONENT_NOT_INSTALLED when its binaries are missing. */
  check(): void;
  /** Its URL for an account on a port. */
  url(account: Account, port: number): string;
  /** Starts it on `port` with its data in `dir`; resolves once it accepts connections and the account works. */
  start(dir: string, account: Account, port: number, times: ServerTimes): Promise<ChildProcess>;
}

/** Whether a server this process owns is restarted when it ends, and where its events go. */
export interface Supervision {
  report(event: ComponentEvent): void;
}

/**
 * Starts `server` with its data in `<root>/<name>/`, or shares the one already running there;
 * with `supervision`, one this process owns is restarted when it ends.
 */
export async function startLocalServer(
  server: LocalServer,
  root: string,
  times: ServerTimes,
  supervision?: Supervision,
): Promise<RunningComponent> {
  server.check();
  const dir = join(root, server.name);
  const account = readAccount(dir);
  const shared = await readLiveRecord(dir);
  if (shared !== undefined) {
    // Its starter has exited: this process takes it over, and stops it at the end.
    const adopt = !alive(shared.owner);
    if (adopt) writeRecord(dir, { ...shared, owner: process.pid });
    const started = { server, dir, account, port: shared.port, times };
    return running(started, shared.pid, adopt, adopt ? supervision : undefined);
  }
  const port = await freePort(account.port);
  let child: ChildProcess;
  try {
    child = await server.start(dir, account, port, times);
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('CLOUDFN_') === true) throw error;
    throw createComponentError(
      'CLOUDFN_COMPONENT_START_FAILED',
      server.name,
      (error as Error).message,
      join(dir, `${server.name}.log`),
    );
  }
  writeAccount(dir, { ...account, port });
  writeRecord(dir, { pid: child.pid!, port, owner: process.pid });
  return running({ server, dir, account, port, times }, child, true, supervision);
}

interface Started {
  readonly server: LocalServer;
  readonly dir: string;
  readonly account: Account;
  readonly port: number;
  readonly times: ServerTimes;
}

function running(
  started: Started,
  serverProcess: ChildProcess | number,
  owned: boolean,
  supervision: Supervision | undefined,
): RunningComponent {
  const { server, dir, account, port, times } = started;
  const url = server.url(account, port);
  const supervisor =
    supervision === undefined
      ? undefined
      : superviseServer(
          {
            ...{ name: server.name, dir, port, log: join(dir, `${server.name}.log`), stopMs: times.stopMs },
            // The same port (the variables the functions read stay true) and the same data.
            restart: () => server.start(dir, account, port, times),
            started: (pid) => writeRecord(dir, { pid, port, owner: process.pid }),
          },
          serverProcess,
          supervision.report,
        );
  const pid = typeof serverProcess === 'number' ? serverProcess : serverProcess.pid!;
  return {
    name: server.name,
    url,
    env: componentEnv(server.name, url),
    dir,
    owned,
    status: () => supervisor?.status(),
    stop: async () => {
      if (!owned) return;
      if (supervisor !== undefined) await supervisor.stop();
      else await stopProcess(pid, times.stopMs);
      rmSync(join(dir, 'server.json'), { force: true });
    },
  };
}

/** A component given by URL: nothing to start or stop. */
export function givenComponent(name: ComponentName, url: string): RunningComponent {
  return {
    ...{ name, url, env: componentEnv(name, url), dir: undefined, owned: false },
    status: () => undefined,
    stop: async () => {},
  };
}
