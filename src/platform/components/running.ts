/**
 * What the local servers share: a component that runs (its URL, the platform's variables for
 * it, whether this process stops it), and the one way each is started or shared. A server that
 * another cloudfn process of the same app started is shared, not started twice; one whose
 * starter has exited is adopted (this process stops it at the end).
 */
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { type Account, readAccount, writeAccount } from './account.js';
import { createComponentError } from './errors.js';
import { alive, freePort, readLiveRecord, stopProcess, writeRecord } from './server-process.js';
import { type ComponentEnv, type ComponentName, componentEnv } from './settings.js';
import { rmSync } from 'node:fs';

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

/** Starts `server` with its data in `<root>/<name>/`, or shares the one already running there. */
export async function startLocalServer(
  server: LocalServer,
  root: string,
  times: ServerTimes,
): Promise<RunningComponent> {
  server.check();
  const dir = join(root, server.name);
  const account = readAccount(dir);
  const shared = await readLiveRecord(dir);
  if (shared !== undefined) {
    // Its starter has exited: this process takes it over, and stops it at the end.
    const adopt = !alive(shared.owner);
    if (adopt) writeRecord(dir, { ...shared, owner: process.pid });
    return running(server, dir, server.url(account, shared.port), shared.pid, adopt, times);
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
  return running(server, dir, server.url(account, port), child.pid!, true, times);
}

function running(
  server: LocalServer,
  dir: string,
  url: string,
  pid: number,
  owned: boolean,
  times: ServerTimes,
): RunningComponent {
  return {
    name: server.name,
    url,
    env: componentEnv(server.name, url),
    dir,
    owned,
    stop: async () => {
      if (!owned) return;
      await stopProcess(pid, times.stopMs);
      rmSync(join(dir, 'server.json'), { force: true });
    },
  };
}

/** A component given by URL: nothing to start or stop. */
export function givenComponent(name: ComponentName, url: string): RunningComponent {
  return { name, url, env: componentEnv(name, url), dir: undefined, owned: false, stop: async () => {} };
}
