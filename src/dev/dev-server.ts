/**
 * `cloudfn dev`: the runtime's `startProject` and `serve()` (the very assembly of `cloudfn start`,
 * so the same config gets the same verdict), with a `Reloader` as the source of the functions
 * (kept in step with their files), the options a developer wants (`trigger: 'ide_debug'`, error
 * messages exposed), readable terminal logs, the project's `.env`, the type check, the debug
 * console under `/_cloudfn/` and the hooks of dev-hooks.ts, and the functions' OpenAPI document
 * (and, when asked, their typed client) from their declared params.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { App } from '../../runtime/app.js';
import { loadProjectConfig } from '../build/project-config.js';
import { resolveOptions } from '../../runtime/options.js';
import { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION, type LogSink } from '../../runtime/log/record.js';
import { exitOnSignals } from '../../runtime/serve/shutdown.js';
import { type FunctionSource, startProject } from '../../runtime/serve/start.js';
import { Scheduler, type SchedulerClock } from '../schedule/scheduler.js';
import { LIVE_PREFIX } from '../platform/live/dev-routes.js';
import { readLiveDataConfig } from '../platform/live/config.js';
import type { LiveRooms } from '../platform/live/rooms.js';
import { LIVE_URL_VAR, readSdkOptions } from '../platform/sdk/sdk-options.js';
import { loadConsoleAssets, type ConsoleAssets } from './console/assets.js';
import { EventHub, teeSink } from './console/event-hub.js';
import { CONSOLE_PREFIX } from './console/routes.js';
import { DEFAULT_DATA_DIR, PLATFORM_ENV_VARS } from '../platform/platform-options.js';
import { DotenvLayer } from './dotenv.js';
import { resolveDevUser } from './dev-user.js';
import { openInspector } from './inspect.js';
import { createPrettySink } from './pretty-sink.js';
import { Reloader, type FunctionStatus } from './reloader.js';
import { startTypeErrors } from './type-errors.js';
import { writeDevClient } from './contract.js';
import { TreeWatcher } from './watch-tree.js';
import { startDevGateway, type DevGateway } from './ws-gateway.js';
import { DEV_TRIGGER_HEADER, devHooks, startLiveRooms } from './dev-hooks.js';
import type { Gateway } from '../platform/gateway/gateway.js';
import { PUSH_MOUNT, PUSH_URL_VAR } from '../platform/gateway/names.js';
import { watchStore } from '../platform/sdk/database/watch.js';

export { DEV_TRIGGER_HEADER } from './dev-hooks.js';

/** Options of `startDevServer`. */
export interface DevServerOptions {
  /** The project folder (holding functions/). */
  root: string;
  /** Port; 0 picks a free one. @default the PORT variable, else 8000 */
  port?: number | string;
  /** Address to listen on. @default the HOST variable, else 127.0.0.1 (dev is not for the network) */
  host?: string;
  /**
   * Variables set in `process.env` before any function loads, winning over the real
   * environment and `.env` (the platform emulator passes its URLs this way); restored on close.
   * @default {}
   */
  env?: Readonly<Record<string, string>>;
  /** Open the debugger: `true` (127.0.0.1:9229), a port, or `host:port`. @default false */
  inspect?: boolean | string;
  /** Where log records go besides the console page. @default pretty lines on stdout */
  sink?: LogSink;
  /** Colour the default sink's lines. @default on for a TTY unless NO_COLOR is set */
  color?: boolean;
  /** Close gracefully and exit 0 on SIGINT/SIGTERM/SIGHUP, or when the parent process exits (the CLI sets it). @default false */
  handleSignals?: boolean;
  /** Time to gather the events of one save before rebuilding. @default 5 */
  debounceMs?: number;
  /**
   * Check types beside the server (the project's TypeScript in watch mode, in a child process)
   * and show the errors in the terminal and on the console page (the CLI turns it on unless
   * `--no-typecheck`). @default false
   */
  typecheck?: boolean;
  /** The folder of the functions, relative to the root (`--functions-dir`). @default the config's functionsDir, else 'functions' */
  functionsDir?: string;
  /** ms a function's module may take to load before it is marked failed. @default the config's loadTimeout, else 10000 */
  loadTimeoutMs?: number;
  /** The clock of the timers of `config.schedule` (tests pass a fake one). @default the system clock */
  clock?: SchedulerClock;
  /** Cut a timer firing not answered within this many ms (tests pass a short one). @default 60000, the platform's */
  firingLimitMs?: number;
  /** Close a WebSocket connection after this many ms without a message (0: never). @default CLOUDFN_WS_IDLE_TIMEOUT, else 600000 */
  wsIdleTimeoutMs?: number;
  /**
   * Write the typed client of `cloudfn client` to this file (absolute), and again whenever a
   * function is added or removed (`--client`). @default undefined (not written)
   */
  client?: string;
}

/** A running dev server. */
export interface DevServer {
  /** e.g. `http://127.0.0.1:8000` */
  url: string;
  /** e.g. `http://127.0.0.1:8000/_cloudfn/` */
  consoleUrl: string;
  port: number;
  app: App;
  server: Server;
  /** The WebSocket URL of the debugger, when `inspect` was given. */
  inspectorUrl: string | undefined;
  /** The functions and their build state. */
  functions(): FunctionStatus[];
  /** The timers of the functions that export `config.schedule`. */
  scheduler: Scheduler;
  /** The live-room simulator: its data tasks, and the pushes to `liveData.path`. */
  live: LiveRooms;
  /** The WebSocket gateway at `/__dycloud__/ws/connect/` (docs/gateway.md). */
  gateway: Gateway;
  /** Resolves once the changes seen so far are applied (tests and benchmarks await it). */
  settled(): Promise<void>;
  /** Stops watching, ends the console's streams, drains requests and closes the port. */
  close(): Promise<void>;
}

/**
 * Starts the dev server of a project.
 * @example
 * const dev = await startDevServer({ root: 'templates/starter', port: 0 });
 * await fetch(`${dev.url}/hello?name=ann`);
 * await dev.close();
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  process.setSourceMapsEnabled(true);
  const root = options.root;
  const hub = new EventHub();
  const logger = new Logger(
    teeSink(options.sink ?? createPrettySink(options.color === undefined ? {} : { color: options.color }), hub),
  );
  // The server SDK stand-in keeps its database in the project's emulator data folder.
  const env = injectEnv({
    ...(process.env[PLATFORM_ENV_VARS.dataDir] ? {} : { [PLATFORM_ENV_VARS.dataDir]: join(root, DEFAULT_DATA_DIR) }),
    ...options.env,
  });
  const dotenv = new DotenvLayer(join(root, '.env'));
  const cleanups: (() => void)[] = [() => dotenv.unload(), env.restore];
  // The console's database panel follows the store's files, whoever writes them (docs/dev.md).
  const storeWatch = watchStore(readSdkOptions().dataDir, () => hub.publish('database', { at: Date.now() }));
  cleanups.push(() => storeWatch.close());
  const undo = (): void => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  };

  let reloader: Reloader | undefined;
  let scheduler: Scheduler | undefined;
  let ws: DevGateway | undefined;
  try {
    reportDotenv(logger, dotenv.load().problems);
    const inspectorUrl =
      options.inspect === undefined || options.inspect === false
        ? undefined
        : openInspector(options.inspect === true ? '' : options.inspect);
    const config = await loadProjectConfig(root);
    const host = options.host ?? (process.env['HOST'] ? undefined : '127.0.0.1');
    const devFlags = {
      port: options.port === undefined ? undefined : String(options.port),
      host,
      functionsDir: options.functionsDir,
      loadTimeout: options.loadTimeoutMs,
    };
    const devUser = resolveDevUser({ env: process.env, config });
    // The functions' source: built with esbuild and kept in step with their files.
    const source: FunctionSource = {
      load: (functionsDir, functionsIgnore) => {
        reloader = new Reloader({
          functionsIgnore,
          loadTimeoutMs: resolveOptions({ flags: devFlags, env: process.env, config }).loadTimeout,
          root,
          logger,
          functionConfig: config.functions ?? {},
          onUpdate: (list) => {
            scheduler?.sync();
            ws?.reloaded(list);
            if (options.client !== undefined) writeDevClient(list, { root, out: options.client, logger });
            hub.publish('functions', list);
          },
          debounceMs: options.debounceMs ?? 5,
          functionsDir,
        });
        return reloader.load();
      },
      names: () => reloader?.list().map((fn) => fn.name) ?? [],
    };
    // Bundling the page takes a moment: start now, serve when asked.
    let assets: Promise<ConsoleAssets> | undefined;
    let timers: Scheduler | undefined;
    let live: ReturnType<typeof startLiveRooms> | undefined;
    let stopTypes: (() => Promise<void>) | undefined;
    const running = await startProject(root, {
      functions: source,
      config,
      flags: devFlags,
      env: process.env,
      logger,
      // Dev stands where the gateway would: the headers it adds (devUserHook) are trusted.
      overrides: {
        trigger: 'ide_debug',
        exposeErrors: true,
        triggerHeader: DEV_TRIGGER_HEADER,
        trustGatewayHeaders: true,
      },
      // Dev counts when prom-client is installed (an optional peer): the console's metrics panel
      // reads /_cloudfn/metrics. Without it the panel says how to turn it on, quietly; the terminal
      // warns only when metrics were asked for (`metrics`, CLOUDFN_METRICS), as the platform's
      // templates do not install prom-client and a warning at every start would be noise.
      metricsWhenInstalled: true,
      // Signals stop the dev server without the lame-duck period (below).
      handleSignals: false,
      startLine: false,
      prepare: (app) => {
        app.observers.add((info) => hub.request(info));
        timers = new Scheduler(app, {
          onBadSchedule: 'log',
          ...(options.clock ? { clock: options.clock } : {}),
          ...(options.firingLimitMs === undefined ? {} : { firingLimitMs: options.firingLimitMs }),
        });
        scheduler = timers;
        timers.sync();
        // The room's anchor is the dev user's room's anchor when it has one, as start_game reads it.
        const rooms = startLiveRooms(app, readLiveDataConfig(config), devUser.anchorOpenid ?? devUser.openid);
        live = rooms;
        cleanups.push(() => rooms.stopAll());
      },
      before: (app) =>
        devHooks({
          app,
          root,
          loader: reloader!,
          hub,
          scheduler: timers!,
          live: live!,
          devUser,
          ws: () => ws,
          assets: () => (assets ??= loadConsoleAssets()),
        }),
      attach: (server, app) => {
        ws = startDevGateway({
          app,
          server,
          logger,
          hub,
          devUser,
          onRoom: (room) => live?.claimFrom(room),
          ...(options.wsIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.wsIdleTimeoutMs }),
        });
        ws.reloaded(reloader!.list());
      },
      onClose: async () => {
        hub.close();
        await stopTypes?.();
        await reloader?.close();
        await ws?.close();
      },
    });
    const { app, server, url } = running;
    const loader = reloader!;
    const gateway = ws!;
    // openApiInvoke of the live-data task calls (webcast.bytedance.com) reaches the simulator here.
    cleanups.push(injectEnv({ [LIVE_URL_VAR]: `${url}${LIVE_PREFIX}` }).restore);
    // Code that calls the push host directly reads where the local push API is.
    cleanups.push(injectEnv({ [PUSH_URL_VAR]: `${url}${PUSH_MOUNT}` }).restore);
    assets = loadConsoleAssets();
    assets.catch(() => undefined);

    loader.watch(app);
    if (options.client !== undefined) writeDevClient(loader.list(), { root, out: options.client, logger });
    const rootWatcher = new TreeWatcher((path) => {
      if (path !== dotenv.file) return;
      const { problems, changed } = dotenv.load();
      reportDotenv(logger, problems);
      if (changed.length > 0) {
        logger.line('info', '', RUNTIME_FUNCTION, `.env changed (${changed.join(', ')}): reloading every function`);
        loader.notify(path, true);
      }
    });
    rootWatcher.watchDir(root);
    cleanups.push(() => rootWatcher.close());
    stopTypes = options.typecheck !== true ? undefined : startTypeErrors({ root, logger, hub });

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        // onClose (above) stops the console's streams, the type check, the watcher and the gateway.
        await running.close();
        undo();
      })());
    if (options.handleSignals === true) {
      cleanups.push(
        exitOnSignals({
          logger,
          stop: close,
          message: (signal) => `${signal} received: stopping the dev server`,
          parent: true,
        }),
      );
    }
    // Announced only once the signals are handled: a parent that reads this line and sends
    // SIGHUP at once must not meet node's default action (exit by the signal).
    const consoleUrl = `${url}${CONSOLE_PREFIX}/`;
    const list = loader.list();
    const failed = list.filter((fn) => fn.status === 'error').length;
    logger.line(
      'info',
      '',
      RUNTIME_FUNCTION,
      `dev server on ${url} with ${list.length} function${list.length === 1 ? '' : 's'}${failed > 0 ? ` (${failed} failing)` : ''}: ${list.map((fn) => fn.name).join(', ')}\n  console: ${consoleUrl}`,
      { url, console: consoleUrl, functions: list.map((fn) => fn.name) },
    );

    return {
      url,
      consoleUrl,
      port: running.port,
      app,
      server,
      inspectorUrl,
      functions: () => loader.list(),
      scheduler: timers!,
      live: live!,
      gateway: gateway.gateway,
      settled: async () => {
        for (let pending = loader.pending; pending !== undefined; pending = loader.pending) await pending;
      },
      close,
    };
  } catch (error) {
    await reloader?.close();
    undo();
    throw error;
  }
}

/** Sets the injected variables and returns how to put the old values back. */
function injectEnv(values: Readonly<Record<string, string>>): { restore: () => void } {
  const previous = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(values)) {
    previous.set(key, process.env[key]);
    process.env[key] = value;
  }
  return {
    restore() {
      for (const [key, value] of previous) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    },
  };
}

function reportDotenv(logger: Logger, problems: string[]): void {
  for (const problem of problems) logger.line('warn', '', RUNTIME_FUNCTION, `.env ${problem}; the line was skipped`);
}
