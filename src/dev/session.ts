/**
 * `cloudfn dev <folder> <folder>…`: the services of one app in one session, as the platform runs
 * them. Each folder is a service with its own process (its functions, config, `.env` and
 * `SERVICE_ID` stay its own, and one failing does not stop the others), on `--port` and the
 * ports that follow. The session starts the app's components once for all (data in the app's
 * data home, `<app root>/.cloudfn/components/`, or the first folder's when there is no app root) and gives each service the variables of those it enables,
 * gives all of them one `dySDK.database()` store (the data home's) and the map of where
 * each service listens (`CLOUDFN_DEV_SERVICES`, which the services extension reads), prints the
 * table of services, and prefixes every line a service prints with its id. A service whose
 * process ends (a function calling `process.exit`) is started again (dev-process.ts).
 */
import { CLOUDFN_PREFIX } from '../../runtime/options.js';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { type DevProcess, superviseDevProcess } from './dev-process.js';
import { loadProjectConfig, toolConfigKeys } from '../build/project-config.js';
import { LOCAL_SERVICES } from '../local-services.js';
import {
  COMPONENT_DIRS_VAR,
  COMPONENTS_DATA_VAR,
  COMPONENTS_GIVEN_VAR,
  componentsDirFor,
} from '../platform/components/service.js';
import {
  COMPONENT_NAMES,
  type ComponentsSetting,
  componentEnv,
  readComponentsSetting,
  startComponents,
} from '../platform/components/index.js';
import { createServiceError } from '../platform/services/errors.js';
import { readServiceSetting, SESSION_VAR } from '../platform/services/setting.js';
import { freePort } from '../platform/components/server-process.js';

/** What the session is given. */
export interface DevSessionOptions {
  /** The services' folders, absolute; the first is served on `port`. */
  readonly roots: readonly string[];
  /** The first service's port (0: free ports for all). @default PORT, else 8000 */
  readonly port?: number;
  /** The address every service listens on. @default 127.0.0.1 */
  readonly host?: string;
  /** Arguments every service's `cloudfn dev` gets after its folder and port (`--no-typecheck`). @default [] */
  readonly args?: readonly string[];
  /** Variables every service gets (the emulator's URLs, the store's folder). @default {} */
  readonly env?: Readonly<Record<string, string>>;
  /** Where lines go. @default process.stdout */
  readonly out?: NodeJS.WritableStream;
  /** The CLI each service runs. @default this package's cloudfn CLI */
  readonly cli?: string;
}

/** One service of the session. */
export interface SessionService {
  readonly id: string;
  readonly root: string;
  readonly url: string;
  /** Its components' variables, as the platform injects them. */
  readonly env: Readonly<Record<string, string>>;
}

/** A running session. */
export interface DevSession {
  readonly services: readonly SessionService[];
  /** Resolves when every service has ended for good (each one that ends is started again until `close`); with the exit codes. */
  readonly exited: Promise<number[]>;
  /** Stops every service, then the components. */
  close(): Promise<void>;
}

interface Planned {
  id: string;
  root: string;
  /** The folder's name, when the id was made from it. */
  derivedFrom?: string;
  components: ComponentsSetting;
}

/** Reads each folder's id and components; refuses two folders with one id. */
async function plan(roots: readonly string[]): Promise<Planned[]> {
  const configKeys = toolConfigKeys(LOCAL_SERVICES);
  const planned: Planned[] = [];
  for (const root of roots) {
    const config = await loadProjectConfig(root, { configKeys });
    const { id, derivedFrom } = readServiceSetting(root, config);
    const twin = planned.find((other) => other.id === id);
    if (twin !== undefined) {
      // An id made from a folder's name says so: "my app" and "my.app" are both my-app.
      const named = (folder: string, from: string | undefined) =>
        from === undefined ? folder : `${folder} (its folder's name made into an id)`;
      throw createServiceError(
        'CLOUDFN_SERVICE_SESSION',
        `${named(twin.root, twin.derivedFrom)} and ${named(root, derivedFrom)} are both the service "${id}"`,
        'give one of them another "serviceId" in its cloudfn.config.json',
      );
    }
    planned.push({
      id,
      root,
      ...(derivedFrom === undefined ? {} : { derivedFrom }),
      components: readComponentsSetting(config['components']),
    });
  }
  return planned;
}

/** The ports: `port`, `port + 1`, …; with 0, a free one each. */
async function ports(first: number, count: number): Promise<number[]> {
  if (first !== 0) return Array.from({ length: count }, (_, i) => first + i);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    let port = await freePort();
    while (out.includes(port)) port = await freePort();
    out.push(port);
  }
  return out;
}

/** Writes each line of `stream` to `out` behind the service's id. */
function prefixLines(stream: NodeJS.ReadableStream, label: string, out: NodeJS.WritableStream): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => out.write(`${label}${line}\n`));
}

/**
 * Starts every service of the app, each in its own `cloudfn dev`.
 * @example
 * const session = await startDevSession({ roots: ['/src/game', '/src/profile'], port: 8000 });
 * // game on http://127.0.0.1:8000, profile on http://127.0.0.1:8001
 * await session.close();
 */
export async function startDevSession(options: DevSessionOptions): Promise<DevSession> {
  const out = options.out ?? process.stdout;
  const host = options.host ?? '127.0.0.1';
  const planned = await plan(options.roots);
  const listen = await ports(options.port ?? Number(process.env['PORT'] ?? 8000), planned.length);
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  // One local server per component that some service sets to true, shared by all of them.
  const local: Record<string, true> = {};
  for (const service of planned)
    for (const name of COMPONENT_NAMES) if (service.components[name] === true) local[name] = true;
  // Supervised here, for all the services: a server that ends is logged and restarted.
  const components = await startComponents(local as ComponentsSetting, {
    dir: options.env?.[COMPONENTS_DATA_VAR] || componentsDirFor(planned[0]!.root),
    supervise: true,
    onEvent: (event) => out.write(`${event.message}\n`),
  });
  const componentDirs = Object.fromEntries(components.running.map((c) => [c.name, c.dir]));
  for (const running of components.running)
    out.write(
      `component ${running.name} on ${running.env[`${running.name.toUpperCase()}_ADDRESS`]} (data in ${running.dir})\n`,
    );
  const services: SessionService[] = planned.map((service, i) => {
    const env: Record<string, string> = {};
    for (const name of COMPONENT_NAMES) {
      const value = service.components[name];
      if (value === undefined) continue;
      const running = components.running.find((c) => c.name === name);
      Object.assign(env, value === true ? running!.env : componentEnv(name, value));
    }
    return { id: service.id, root: service.root, url: `http://${urlHost}:${listen[i]}`, env };
  });
  const map = Object.fromEntries(services.map((service) => [service.id, service.url]));
  const width = Math.max(...services.map((service) => service.id.length));
  out.write(
    `services:\n${services.map((s) => `  ${s.id.padEnd(width)}  ${s.url}  console ${s.url}${CLOUDFN_PREFIX}/  (${s.root})`).join('\n')}\n`,
  );
  const cli = options.cli ?? fileURLToPath(new URL('../cli/index.js', import.meta.url));
  let closing = false;
  const processes: DevProcess[] = services.map((service, i) => {
    const label = `${service.id.padEnd(width)} │ `;
    return superviseDevProcess({
      ...{ cli, root: service.root, port: listen[i], args: ['--host', host, ...(options.args ?? [])] },
      env: {
        ...process.env,
        ...options.env,
        ...service.env,
        [SESSION_VAR]: JSON.stringify(map),
        [COMPONENTS_GIVEN_VAR]: '1',
        [COMPONENT_DIRS_VAR]: JSON.stringify(componentDirs),
        // The lines are read through a pipe: keep the colours the terminal would show.
        ...(process.stdout.isTTY && process.env['NO_COLOR'] === undefined ? { FORCE_COLOR: '1' } : {}),
      },
      output: 'pipe',
      onSpawn: (child) => {
        prefixLines(child.stdout!, label, out);
        prefixLines(child.stderr!, label, out);
      },
      // A service that ends is started again (dev-process.ts); the others serve on meanwhile.
      say: (line) => {
        if (!closing) out.write(`${label}${line}\n`);
      },
      firstFailureEnds: false,
      othersNote: '; the other services keep running',
    });
  });
  const exited = Promise.all(processes.map((dev) => dev.ended));
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      closing = true;
      await Promise.all(processes.map((dev) => dev.stop()));
      await components.stop();
    })());
  return { services, exited, close };
}
