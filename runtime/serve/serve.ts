/**
 * Serving functions already imported, the way a built bundle and `cloudfn start` do: resolve
 * the options, listen (with the health path), log one start-up line, and trap signals and
 * stray errors. `serve` is the entry of bundles, whose functions are already imported, and the
 * one assembly of a server: `cloudfn dev` is `serve` given its functions as the reloader has
 * them, plus its overrides and its list of extensions (extension.ts), so both commands refuse
 * the same configs with the same words. Reading a project folder (its config file, finding and
 * loading its functions) is start.ts's, which a bundle does not import (issue 44).
 */
import type { Server } from 'node:http';
import { App } from '../app.js';
import { loadRoutePatterns } from '../request/router.js';
import { Logger } from '../log/logger.js';
import { RUNTIME_FUNCTION } from '../log/record.js';
import { createJsonSink } from '../log/sinks.js';
import { resolveOptions, type OptionSources, type RuntimeOptions } from '../options.js';
import type { FunctionSpec } from '../types.js';
import type { ConfigFile } from './config-file.js';
import { loadOpenTelemetry } from '../trace/otel.js';
import { type BeforeHook, createHttpServer, listen, type RequestGuard } from './http-server.js';
import type { ShutdownOptions } from './drain.js';
import type { Extension } from './extension.js';
import type { InjectRequest, InjectResponse } from './inject.js';
import { exitOnSignals } from './shutdown.js';
import { captureConsole } from '../log/console-capture.js';
import { keepServingOnStrayErrors } from './stray-errors.js';

/** A running server. */
export interface RunningServer {
  app: App;
  server: Server;
  /** e.g. `http://localhost:8000` */
  url: string;
  port: number;
  /** Graceful shutdown without the lame-duck period; resolves when the server has closed. */
  close(): Promise<void>;
  /** Graceful shutdown after the lame-duck period (`drainDelay`), as on SIGTERM. */
  drain(): Promise<void>;
  /**
   * Sends one request through this server without a socket (serve/inject.ts, loaded on first
   * use): its hooks, router and pipeline, as a request from the network would pass them.
   * @example const res = await running.inject({ method: 'GET', path: '/hello?name=ann' })
   */
  inject(request: InjectRequest): Promise<InjectResponse>;
}

export interface ServeOptions {
  /** Flags given on the command line (strings as typed). */
  flags?: OptionSources['flags'];
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** The config file's content. */
  config?: ConfigFile;
  /** Custom routes, pattern → function name (merged over the config file's). */
  routes?: Record<string, string>;
  /** Options that win over every source (the dev server sets `trigger`, `exposeErrors`). */
  overrides?: Partial<RuntimeOptions>;
  /** @default JSON lines on stdout */
  logger?: Logger;
  /** Exit 0 after a graceful shutdown on SIGTERM/SIGINT. @default true */
  handleSignals?: boolean;
  /**
   * With `handleSignals`, also stop gracefully when the parent process goes away, as `cloudfn
   * dev` does (`exitOnSignals`'s `parent`): `cloudfn start` sets it when npm started it, since
   * npm killed by its PID passes no signal on. @default false
   */
  exitWithParent?: boolean;
  /** Log stray rejections and exceptions and keep serving. @default true */
  keepServing?: boolean;
  /**
   * The local services the server runs beside the functions (extension.ts): the timers under
   * `cloudfn start`; the dev user, the timers, the live rooms, the WebSocket gateway and the
   * console under `cloudfn dev`. Each part runs in list order (`close` in reverse). @default []
   */
  extensions?: readonly Extension[];
  /**
   * Count requests whenever prom-client loads, even with metrics off (the dev console's metrics
   * panel). Without prom-client the server then starts anyway, with a warning when metrics were
   * asked for, and none otherwise. @default false (metrics only when on, refused without prom-client)
   */
  metricsWhenInstalled?: boolean;
  /** Log the `listening on ...` line (the dev server logs its own). @default true */
  startLine?: boolean;
  /**
   * The check run first on every request and upgrade from a socket, before the health path and
   * every hook (http-server.ts's `RequestGuard`), made from the app's resolved options: `cloudfn
   * dev`'s Host and Origin policy (src/dev/host-guard.ts). @default none
   */
  guard?: (app: App) => RequestGuard;
}

/**
 * Serves already-imported functions: the entry point of `dist/<name>/index.mjs` bundles.
 * @example await serve([{ name: 'hello', handler }], { env: process.env })
 */
export async function serve(functions: FunctionSpec[], options: ServeOptions = {}): Promise<RunningServer> {
  const config = options.config ?? {};
  const resolved = resolveOptions({ flags: options.flags, env: options.env ?? process.env, config });
  const perFunction = config.functions ?? {};
  const specs = functions.map((spec) => ({ ...spec, config: { ...perFunction[spec.name], ...spec.config } }));
  const logger = options.logger ?? new Logger(createJsonSink());
  const routes = { ...config.routes, ...options.routes };
  await loadRoutePatterns(routes);
  const app = new App({
    functions: specs,
    routes,
    options: { ...resolved, ...options.overrides },
    logger,
  });
  const before: BeforeHook[] = [];
  // Imported only when on (or wanted when installed): a server without metrics loads none of it.
  const whenInstalled = options.metricsWhenInstalled === true;
  const metricsHook =
    app.options.metrics || whenInstalled
      ? await (await import('./import-metrics.js')).startMetrics(app, logger, whenInstalled)
      : undefined;
  if (metricsHook !== undefined) before.push(metricsHook);
  // A self-hosted fleet's inner calls: the hook is imported only when a map is given.
  const innerCalls =
    Object.keys(app.options.innerCallUrls).length === 0
      ? undefined
      : (await import('../intranet/fleet.js')).fleetInnerCalls(app.options.innerCallUrls, options.env ?? process.env);
  const extensions = [...(innerCalls === undefined ? [] : [innerCalls]), ...(options.extensions ?? [])];
  for (const extension of extensions) await extension.prepare?.(app);
  // One hook for every extension: their hosts, then their routes, then onRequest (dispatch.ts).
  const dispatcher =
    extensions.length === 0 ? undefined : (await import('./dispatch.js')).compileDispatcher(app, extensions);
  if (dispatcher !== undefined) before.push(dispatcher);
  const guard = options.guard?.(app);
  const server = createHttpServer(app, guard === undefined ? { before } : { before, guard });
  for (const extension of extensions) extension.upgrade?.(server, app);
  // An OpenTelemetry SDK registered before start (node --import): its bridge is loaded before
  // the first request, so that request has its span. Without an SDK this loads nothing.
  await loadOpenTelemetry();
  const bound = await listen(server, app.options.port, app.options.host);
  // The extensions' variables (extension.ts, imported only when there are extensions).
  const restoreEnv =
    extensions.length === 0 ? undefined : (await import('./extension.js')).setExtensionEnv(extensions, bound.url);
  // The platform hosts the extensions stand in for, in the process's one host table (imported
  // only when one declares a host): a function's call to one reaches this server.
  const removeHosts = !extensions.some((extension) => extension.hosts !== undefined)
    ? undefined
    : await (await import('./serve-hosts.js')).addExtensionHosts(app, server, extensions, bound.port);
  // Installed once the port is open, so a start-up that fails leaves console as it was.
  const restoreConsole = app.options.captureConsole ? captureConsole(logger) : undefined;
  // performance.now() counts from the process start: the cold start, up to the open port.
  app.metrics?.listening(performance.now() / 1000);
  // The graceful stop is imported when asked for: a bundle's start-up does not read it.
  const shutdown = async (stopOptions: ShutdownOptions = {}): Promise<boolean> =>
    (await import('./drain.js')).shutdown(app, server, stopOptions);
  // A signal stops as drain() does: the extensions first (the WebSocket gateway closes its
  // sockets with 1001, which the port's close would otherwise wait for), then the drain.
  const stopOnSignal = async (stopOptions: ShutdownOptions): Promise<boolean> => {
    await closeExtensions(extensions);
    await removeHosts?.();
    return shutdown(stopOptions);
  };
  const removers = [
    options.handleSignals === false
      ? undefined
      : exitOnSignals({
          logger,
          stop: () => stopOnSignal({ drainDelay: app.options.drainDelay }),
          // Nothing balances traffic to a server whose npm parent was killed: no lame duck.
          stopWithoutParent: () => stopOnSignal({}),
          message: (signal) =>
            `${signal} received: serving for ${app.options.drainDelay} ms while balancers notice, then finishing ${app.inflight} requests in flight and exiting`,
          parent: options.exitWithParent === true,
        }),
    options.keepServing === false ? undefined : keepServingOnStrayErrors(app),
  ];
  const names = app.router.list().map((fn) => fn.name);
  if (options.startLine !== false)
    logger.line(
      'info',
      '',
      RUNTIME_FUNCTION,
      `listening on ${bound.url} with ${names.length} function${names.length === 1 ? '' : 's'}: ${names.join(', ')}`,
      {
        url: bound.url,
        functions: names,
      },
    );
  return {
    app,
    server,
    url: bound.url,
    port: bound.port,
    async close() {
      // The hosts stay while the extensions close: a call in flight may still push through them.
      await closeExtensions(extensions);
      await removeHosts?.();
      for (const remove of removers) remove?.();
      await shutdown();
      restoreConsole?.();
      restoreEnv?.();
    },
    async drain() {
      // The hosts stay while the extensions close: a call in flight may still push through them.
      await closeExtensions(extensions);
      await removeHosts?.();
      for (const remove of removers) remove?.();
      await shutdown({ drainDelay: app.options.drainDelay });
      restoreEnv?.();
    },
    inject: async (request) => (await import('./inject.js')).inject(server, request),
  };
}

/** Closes the extensions, the last first. */
async function closeExtensions(extensions: readonly Extension[]): Promise<void> {
  for (const extension of [...extensions].reverse()) await extension.close?.();
}
