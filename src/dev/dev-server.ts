/**
 * `cloudfn dev`: the runtime's own app and http server (the very pipeline of `cloudfn start`),
 * with the options a developer wants (`trigger: 'ide_debug'`, error messages exposed), the
 * functions kept in step with their files by a `Reloader`, readable terminal logs, the project's
 * `.env`, the debug console under `/_cloudfn/`, and the functions' OpenAPI document (and, when
 * asked, their typed client) from their declared params.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import { App } from '../../runtime/app.js';
import { loadRoutePatterns } from '../../runtime/request/router.js';
import { checkFunctionNames } from '../../runtime/serve/config-file.js';
import { loadProjectConfig } from '../build/project-config.js';
import { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION, type LogSink } from '../../runtime/log/record.js';
import { resolveOptions } from '../../runtime/options.js';
import { captureConsole } from '../../runtime/log/console-capture.js';
import { createHttpServer, listen } from '../../runtime/serve/http-server.js';
import { keepServingOnStrayErrors } from '../../runtime/serve/stray-errors.js';
import { shutdown } from '../../runtime/serve/drain.js';
import { exitOnSignals } from '../../runtime/serve/shutdown.js';
import { importMetrics } from '../../runtime/serve/import-metrics.js';
import { Scheduler, type SchedulerClock } from '../schedule/scheduler.js';
import { triggerHook } from '../schedule/trigger-route.js';
import { liveHook, LIVE_PREFIX } from '../platform/live/dev-routes.js';
import { readLiveDataConfig } from '../platform/live/config.js';
import { LiveRooms } from '../platform/live/rooms.js';
import { LIVE_URL_VAR } from '../platform/sdk/sdk-options.js';
import { generateLogid } from '../../runtime/log/logid.js';
import { memoryRequest } from '../memory-request.js';
import { loadConsoleAssets, type ConsoleAssets } from './console/assets.js';
import { EventHub, teeSink } from './console/event-hub.js';
import { CONSOLE_PREFIX, createConsoleHandler, isConsolePath } from './console/routes.js';
import { DEFAULT_DATA_DIR, PLATFORM_ENV_VARS } from '../platform/platform-options.js';
import { DotenvLayer } from './dotenv.js';
import { devUserHook, resolveDevUser } from './dev-user.js';
import { openInspector } from './inspect.js';
import { createPrettySink } from './pretty-sink.js';
import { Reloader, type FunctionStatus } from './reloader.js';
import { startTypeErrors } from './type-errors.js';
import { openApiHook, writeDevClient } from './contract.js';
import { TreeWatcher } from './watch-tree.js';
import { startDevGateway, type DevGateway } from './ws-gateway.js';
import type { Gateway } from '../platform/gateway/gateway.js';
import { PUSH_MOUNT, PUSH_URL_VAR } from '../platform/gateway/names.js';

/**
 * The request header the dev server trusts to set `service.trigger` (the runtime's
 * `triggerHeader` option); the console page sends `console_debug` in it. `cloudfn start`
 * trusts no such header unless configured to.
 */
export const DEV_TRIGGER_HEADER = 'x-cloudfn-trigger';

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
    const resolved = resolveOptions({
      flags: {
        port: options.port === undefined ? undefined : String(options.port),
        host,
        functionsDir: options.functionsDir,
      },
      env: process.env,
      config,
    });

    const devUser = resolveDevUser({ env: process.env, config });
    const loader = new Reloader({
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
      functionsDir: resolved.functionsDir,
    });
    reloader = loader;
    const specs = await loader.load();
    checkFunctionNames(
      config,
      loader.list().map((fn) => fn.name),
    );
    await loadRoutePatterns(config.routes);
    const app = new App({
      functions: specs,
      routes: config.routes ?? {},
      // Dev stands where the gateway would: the headers it adds (devUserHook) are trusted.
      options: {
        ...resolved,
        trigger: 'ide_debug',
        exposeErrors: true,
        triggerHeader: DEV_TRIGGER_HEADER,
        trustGatewayHeaders: true,
      },
      logger,
    });
    app.observers.add((info) => hub.request(info));
    // Dev counts when prom-client is installed (an optional peer): the console's metrics panel
    // reads /_cloudfn/metrics. Without it the panel says how to turn it on, quietly; the terminal
    // warns only when metrics were asked for (`metrics`, CLOUDFN_METRICS), as the platform's
    // templates do not install prom-client and a warning at every start would be noise.
    const metrics = await importMetrics().catch((error: unknown) => {
      if (resolved.metrics) logger.line('warn', '', RUNTIME_FUNCTION, `metrics panel off: ${(error as Error).message}`);
      return undefined;
    });
    if (metrics !== undefined) app.useMetrics(metrics.loadMetrics(app));
    const timers = new Scheduler(app, {
      onBadSchedule: 'log',
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.firingLimitMs === undefined ? {} : { firingLimitMs: options.firingLimitMs }),
    });
    scheduler = timers;
    timers.sync();
    // The room's anchor is the dev user's room's anchor when it has one, as start_game reads it.
    const live = startLiveRooms(app, readLiveDataConfig(config), devUser.anchorOpenid ?? devUser.openid);
    cleanups.push(() => live.stopAll());

    // Bundling the page takes a moment: start now, serve when asked.
    let assets: Promise<ConsoleAssets> | undefined;
    const consoleHandler = createConsoleHandler({
      app,
      hub,
      functions: () => loader.list(),
      schedules: () => timers.list(),
      assets: () => (assets ??= loadConsoleAssets()),
      triggerHeader: DEV_TRIGGER_HEADER,
      devUser,
      connections: () => ws?.gateway.sessions() ?? [],
    });
    const server = createHttpServer(app, {
      before: [
        devUserHook(devUser),
        ...(metrics !== undefined && app.metrics !== undefined ? [metrics.metricsHook(app.metrics)] : []),
        triggerHook(timers),
        liveHook({ rooms: live, config: () => live.config }),
        (req, res) => ws?.pushHook(req, res) ?? false,
        openApiHook(app, root),
        (req, res) => {
          if (!isConsolePath(req.url ?? '/')) return false;
          consoleHandler(req, res);
          return true;
        },
        (req, res) => {
          const pending = loader.pending;
          if (pending === undefined) return false;
          // A save is being applied: this request runs the saved code, not the old one.
          void pending.then(() => app.handle(req, res));
          return true;
        },
      ],
    });
    const gateway = startDevGateway({
      app,
      server,
      logger,
      hub,
      devUser,
      ...(options.wsIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.wsIdleTimeoutMs }),
    });
    ws = gateway;
    gateway.reloaded(loader.list());
    const bound = await listen(server, app.options.port, app.options.host);
    // openApiInvoke of the live-data task calls (webcast.bytedance.com) reaches the simulator here.
    cleanups.push(injectEnv({ [LIVE_URL_VAR]: `${bound.url}${LIVE_PREFIX}` }).restore);
    // Code that calls the push host directly reads where the local push API is.
    cleanups.push(injectEnv({ [PUSH_URL_VAR]: `${bound.url}${PUSH_MOUNT}` }).restore);
    if (app.options.captureConsole) cleanups.push(captureConsole(logger));
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
    cleanups.push(() => rootWatcher.close(), keepServingOnStrayErrors(app));
    const stopTypes = options.typecheck !== true ? undefined : startTypeErrors({ root, logger, hub });

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        hub.close();
        await stopTypes?.();
        await loader.close();
        await gateway.close();
        await shutdown(app, server);
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
    const consoleUrl = `${bound.url}${CONSOLE_PREFIX}/`;
    const list = loader.list();
    const failed = list.filter((fn) => fn.status === 'error').length;
    logger.line(
      'info',
      '',
      RUNTIME_FUNCTION,
      `dev server on ${bound.url} with ${list.length} function${list.length === 1 ? '' : 's'}${failed > 0 ? ` (${failed} failing)` : ''}: ${list.map((fn) => fn.name).join(', ')}\n  console: ${consoleUrl}`,
      { url: bound.url, console: consoleUrl, functions: list.map((fn) => fn.name) },
    );

    return {
      url: bound.url,
      consoleUrl,
      port: bound.port,
      app,
      server,
      inspectorUrl,
      functions: () => loader.list(),
      scheduler: timers,
      live,
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

/**
 * The live rooms of a dev server: pushes go into the app in memory, through a server without
 * the dev server's hooks (the platform's push carries no caller headers), each with a fresh
 * `x-tt-logid`, which the dev server (trusting the gateway) adopts as the request's logid.
 */
function startLiveRooms(
  app: App,
  config: ReturnType<typeof readLiveDataConfig>,
  anchor: string,
): LiveRooms & { config: typeof config } {
  const server = createHttpServer(app);
  const rooms = new LiveRooms({
    config: () => config,
    defaultAnchor: anchor,
    deliver: async (push) => {
      const answer = await memoryRequest(server, {
        method: 'POST',
        path: push.path,
        headers: { ...push.headers, host: 'cloudfn.live', 'x-tt-logid': generateLogid() },
        body: push.body,
      });
      const logid = answer.headers[app.options.logidHeader];
      return { status: answer.status, logid: typeof logid === 'string' ? logid : '', body: answer.body };
    },
  });
  app.onShutdown(() => server.closeAllConnections());
  return Object.assign(rooms, { config });
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
