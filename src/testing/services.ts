/**
 * `startServices` for tests of a service that calls others of its app: each target project is
 * served in this process on a loopback port, its functions loaded as `invoke` loads them, and
 * the intranet hook (runtime/intranet/) sends `http://{self}-{target}.inner-call.dyc.ivolces.com/…`
 * to it, checked as `cloudfn dev` checks (HTTP only, the caller's own id, a target it enabled).
 * The hook is the only process state it changes, and `stop` removes it.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { addInnerCalls } from '../../runtime/intranet/host-table.js';
import type { InnerCallTable, ServiceAddress } from '../../runtime/intranet/inner-call.js';
import { createError } from '../../runtime/errors.js';
import { Logger } from '../../runtime/log/logger.js';
import type { LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { type FunctionSource, type RunningServer, startProject } from '../../runtime/serve/start.js';
import { loadProjectConfig } from '../build/project-config.js';
import { ID, readServiceSetting } from '../platform/services/setting.js';
import { loadFunctionFile } from './load-target.js';

/** Options of `startServices`. */
export interface StartServicesOptions {
  /**
   * The calling service (the one whose handlers the test invokes): its id, or `{ root }`, its
   * project folder, whose cloudfn.config gives the id (`serviceId`, else the folder's name) and
   * the targets it enabled (`innerCall`).
   */
  readonly self: string | { readonly root: string };
  /** The services to start, by id: each a cloudfn project folder. */
  readonly services: Readonly<Record<string, string>>;
  /**
   * The targets the caller enabled, when `self` is an id. @default every service started here
   * (with `{ root }`, its config's `innerCall`; giving both is refused)
   */
  readonly innerCall?: readonly string[];
  /** Where relative folders are looked up. @default process.cwd() */
  readonly cwd?: string;
}

/** The running services. */
export interface TestServices {
  /** The caller's id: the `{self}` of the hosts it calls. */
  readonly self: string;
  /** Each started service's base URL on 127.0.0.1, by id. */
  readonly urls: Readonly<Record<string, string>>;
  /**
   * What the platform injects in the caller, for a handler that reads it: `SERVICE_ID` and
   * `CLOUD_ENV` (`DEV`). The helper leaves `process.env` alone: a test that needs them sets them (`vi.stubEnv`).
   */
  readonly env: Readonly<{ SERVICE_ID: string; CLOUD_ENV: 'DEV' }>;
  /** Each started service's log records (its request lines, `service.log`), by id, as they come. */
  readonly logs: Readonly<Record<string, readonly LogRecord[]>>;
  /** The reason of every call refused so far (also the message of the error the caller saw). */
  readonly refused: readonly string[];
  /** Removes the hook and closes the servers. */
  stop(): Promise<void>;
}

/** The hook patches process-wide objects, so one set of services runs at a time. */
let running: { readonly self: string } | undefined;

/** Reads the project a service runs from, refusing a folder that is not there. */
async function readProject(folder: string, cwd: string, what: string) {
  const root = resolve(cwd, folder);
  if (!existsSync(root))
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      folder,
      `${what} has no such folder (looked in ${cwd}); pass the project folder, relative to the working folder`,
    );
  const { file: _file, ...config } = await loadProjectConfig(root);
  return { root, config };
}

/** A project's functions, loaded as `invoke` loads a file (compiled into `.cloudfn/testing/`). */
function testingFunctions(root: string): FunctionSource {
  let names: string[] = [];
  return {
    async load(functionsDir, functionsIgnore) {
      const found = discoverFunctions(root, functionsDir, { ignore: functionsIgnore });
      names = found.map((fn) => fn.name);
      return Promise.all(found.map(({ name, file }) => loadFunctionFile(file, name, root)));
    },
    names: () => names,
  };
}

function checkId(id: string, what: string): void {
  if (!ID.test(id))
    throw new TypeError(
      `startServices: ${what} ${JSON.stringify(id)} is not a service id; write it as the platform shows it: lower-case letters, digits and inner hyphens, e.g. "profile"`,
    );
}

/** The caller's id, its enabled targets and where they are enabled. */
async function callerOf(options: StartServicesOptions, cwd: string) {
  const { self } = options;
  if (typeof self === 'string') {
    checkId(self, 'self');
    return {
      id: self,
      enabled: options.innerCall,
      enableWhere: 'the innerCall list given to startServices',
    };
  }
  if (typeof self !== 'object' || self === null || typeof self.root !== 'string')
    throw new TypeError(
      `startServices: self is the calling service's id ('game') or its project folder ({ root: 'services/game' }); got ${self === null ? 'null' : typeof self}`,
    );
  if (options.innerCall !== undefined)
    throw new TypeError(
      `startServices: give innerCall or self: { root }, not both; the targets of ${self.root} are its cloudfn.config.json's innerCall (pass self by id to list them here instead)`,
    );
  const { root, config } = await readProject(self.root, cwd, 'self');
  const setting = readServiceSetting(root, config);
  return { id: setting.id, enabled: setting.innerCall, enableWhere: setting.innerCallWhere };
}

/** Serves one target project on a loopback port, its log in memory. */
async function startOne(id: string, folder: string, cwd: string) {
  checkId(id, 'the service id');
  const { root, config } = await readProject(folder, cwd, `service ${id}`);
  const own = config['serviceId'];
  if (own !== undefined && own !== id)
    throw new TypeError(
      `startServices: services.${id} is ${folder}, whose cloudfn.config.json has serviceId ${JSON.stringify(own)}; start it as ${JSON.stringify(own)}, or change its serviceId`,
    );
  const sink = createMemorySink();
  const server = await startProject(root, {
    config,
    flags: { port: '0', host: '127.0.0.1' },
    // Nothing of the process beyond the hook: no console capture, no fleet hook of its own,
    // no signal or stray-error handlers.
    overrides: { captureConsole: false, innerCallUrls: {} },
    logger: new Logger(sink),
    handleSignals: false,
    keepServing: false,
    startLine: false,
    functions: testingFunctions(root),
  });
  return { server, records: sink.records };
}

/**
 * Starts the services a handler calls, in this process, and routes its inner calls to them:
 * `fetch` and `http.request` to `http://{self}-{id}.inner-call.dyc.ivolces.com/<path>` (or
 * `{self}-{id}.dycloud.service`) reach that service's real handlers, unchanged. A call the
 * platform would refuse (`https://`, another caller's id, a target not enabled) fails as a
 * connection error naming the fix, as under `cloudfn dev`.
 * @example
 * const services = await startServices({ self: { root: 'services/game' }, services: { profile: 'services/profile' } });
 * const res = await invoke('services/game/functions/play.ts'); // its fetch of game-profile.inner-call… is answered by profile
 * await services.stop();
 */
export async function startServices(options: StartServicesOptions): Promise<TestServices> {
  if (running !== undefined)
    throw new Error(
      `startServices: the services called by ${running.self} still run in this process; stop() them before starting others (the intranet hook is process-wide)`,
    );
  const cwd = options.cwd ?? process.cwd();
  const caller = await callerOf(options, cwd);
  if (typeof options.services !== 'object' || options.services === null)
    throw new TypeError(
      `startServices: services maps each service id to its project folder, e.g. { profile: 'services/profile' }`,
    );
  const mine = { self: caller.id };
  running = mine;
  const started = new Map<string, { server: RunningServer; records: LogRecord[] }>();
  const refused: string[] = [];
  let off: (() => Promise<void>) | undefined;
  const stop = async (): Promise<void> => {
    await off?.();
    off = undefined;
    const servers = [...started.values()];
    started.clear();
    await Promise.all(servers.map(({ server }) => server.close()));
    if (running === mine) running = undefined;
  };
  try {
    for (const [id, folder] of Object.entries(options.services)) started.set(id, await startOne(id, folder, cwd));
    const services = new Map<string, ServiceAddress>(
      [...started].map(([id, { server }]) => [id, { host: '127.0.0.1', port: server.port }]),
    );
    const table: InnerCallTable = {
      self: caller.id,
      services,
      ...(caller.enabled === undefined ? {} : { enabled: caller.enabled }),
      enableWhere: caller.enableWhere,
      startFix: (_from, to) => `start it with startServices({ services: { ${to}: '<its project folder>' } })`,
    };
    off = await addInnerCalls({ table, onRefused: (reason) => void refused.push(reason) });
  } catch (error) {
    await stop();
    throw error;
  }
  const all = [...started];
  return {
    self: caller.id,
    urls: Object.fromEntries(all.map(([id, { server }]) => [id, `http://127.0.0.1:${server.port}`])),
    env: { SERVICE_ID: caller.id, CLOUD_ENV: 'DEV' },
    logs: Object.fromEntries(all.map(([id, { records }]) => [id, records])),
    refused,
    stop,
  };
}
