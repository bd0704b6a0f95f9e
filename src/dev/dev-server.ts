/**
 * `cloudfn dev`, an assembly: the runtime's `startProject` and `serve()` (the very assembly of
 * `cloudfn start`, so the same config gets the same verdict) with the project's `.env`
 * (dev-env.ts), the `Reloader` as the source of the functions (dev-loop.ts), readable terminal
 * logs, the options a developer wants (dev-options.ts), one list of extensions (every local
 * service of src/local-services.ts, the console, and the loop), and the guard that runs first
 * on every request and upgrade (host-guard.ts).
 */
import { Logger } from '../../runtime/log/logger.js';
import { type OptionSources, resolveOptions } from '../../runtime/options.js';
import { type LogSink, RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import type { Extension } from '../../runtime/serve/extension.js';
import { exitOnSignals } from '../../runtime/serve/shutdown.js';
import { startProject } from '../../runtime/serve/start.js';
import { loadProjectConfig, toolConfigKeys } from '../build/project-config.js';
import type { ServiceExtension } from '../local-service.js';
import { LOCAL_SERVICES, serviceBus, startLocalServices } from '../local-services.js';
import { resolveDevUser } from '../platform/gateway/dev-user.js';
import { SESSION_VAR } from '../platform/services/setting.js';
import { EventHub, teeSink } from './console/event-hub.js';
import { consoleExtension } from './console/extension.js';
import { CONSOLE_PREFIX, isConsolePath } from './console/routes.js';
import { DevEnvironment } from './dev-env.js';
import { DevLoop } from './dev-loop.js';
import { DEV_HOSTS_SETTING, hostGuard } from './host-guard.js';
import { DEV_READY, EXIT_NOTE_VAR, type ExitWatch, RESTARTED_VAR, watchExit } from './exit-note.js';
import {
  DEV_OVERRIDES,
  DEV_TRIGGER_HEADER,
  type DevServer,
  type DevServerOptions,
  inServiceOrder,
} from './dev-options.js';
import { openInspector } from './inspect.js';
import { createPrettySink } from './pretty-sink.js';

export { DEV_TRIGGER_HEADER } from './dev-options.js';
export type { DevServer, DevServerOptions } from './dev-options.js';

/**
 * Starts the dev server of a project.
 * @example
 * const dev = await startDevServer({ root: 'templates/starter', port: 0 });
 * await fetch(`${dev.url}/hello?name=ann`);
 * await dev.close();
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  process.setSourceMapsEnabled(true);
  const { root } = options;
  const hub = new EventHub();
  const logger = new Logger(teeSink(options.sink ?? prettySink(options), hub));
  const env = new DevEnvironment(root, logger, options.env);
  // A function that calls process.exit ends this process: say which, and tell a supervising parent.
  const noteFile = process.env[EXIT_NOTE_VAR] || undefined;
  const exit = watchExit({ logger, root, noteFile });
  let loop: DevLoop | undefined;
  let started: ServiceExtension[] = [];
  let running: Awaited<ReturnType<typeof startProject>> | undefined;
  try {
    const inspect = options.inspect;
    const inspectorUrl =
      inspect === undefined || inspect === false ? undefined : openInspector(inspect === true ? '' : inspect);
    const list = inServiceOrder(options.services ?? LOCAL_SERVICES, process.env);
    const configKeys = toolConfigKeys(list);
    const config = await loadProjectConfig(root, { configKeys });
    const devUser = resolveDevUser({ env: process.env, config });
    const flags = devFlags(options);
    const { loadTimeout } = resolveOptions({ flags, env: process.env, config });
    const functions = (loop = new DevLoop({
      ...{ root, logger, config, hub, env, loadTimeoutMs: loadTimeout },
      ...pick(options, 'debounceMs', 'typecheck', 'client'),
    }));
    const services = (started = await startLocalServices(list, {
      ...{ root, config, logger, devUser, settings: { ...options } },
      // What one service publishes, the console's pages and the other services hear.
      ...serviceBus((event, data) => hub.publish(event, data)),
      onFunctions: (listener) => functions.onFunctions(listener),
      setEnv: (vars) => env.set(vars),
      dotenvValue: (key) => env.fileValue(key),
    }));
    // Not a server's extension: only the console's meta reads it.
    const restartNote = restartedExtension();
    const consolePanel = consoleExtension({
      ...{ root, hub, devUser, triggerHeader: DEV_TRIGGER_HEADER, extensions: () => [...services, restartNote] },
      functions: () => functions.list(),
    });
    const extensions: Extension[] = [...services, consolePanel, functions.extension()];
    running = await startProject(root, {
      ...{ functions, config, configKeys, flags, env: process.env, logger, extensions },
      overrides: DEV_OVERRIDES,
      // The console's metrics panel reads ${CLOUDFN_PREFIX}/metrics when prom-client (an optional peer) is
      // installed; without it the terminal warns only when metrics were asked for.
      metricsWhenInstalled: true,
      // Signals stop the dev server without the lame-duck period (stopOnSignals).
      handleSignals: false,
      startLine: false,
      // Before every hook, on every request and upgrade: who may call the dev server (host-guard.ts).
      guard: (app) =>
        hostGuard({
          ...{ host: app.options.host, allowedHosts: app.options.allowedHosts, setting: DEV_HOSTS_SETTING },
          writes: isConsolePath,
          // The console's JSON write APIs: the database's (its other API paths take no writes: 405).
          json: (path) => path.startsWith(`${CONSOLE_PREFIX}/api/database`),
          intranet: true,
        }),
    });
    const project = running;
    const close = stopOnSignals(options.handleSignals === true, logger, () => {
      ended(exit, noteFile);
      return project.close().finally(() => env.restore());
    });
    // Announced only once the signals are handled: a parent that reads this line and sends
    // SIGHUP at once must not meet node's default action (exit by the signal).
    const consoleUrl = `${running.url}${CONSOLE_PREFIX}/`;
    logStart(logger, running.url, consoleUrl, functions.list());
    const restarted = process.env[RESTARTED_VAR];
    if (restarted) logger.line('warn', '', RUNTIME_FUNCTION, `restarted: ${restarted}`);
    // The supervising parent starts it again on this port should it end.
    if (noteFile !== undefined) process.send?.({ type: DEV_READY, port: running.port });
    return {
      ...{ url: running.url, consoleUrl, port: running.port, app: running.app, server: running.server, inspectorUrl },
      functions: () => functions.list(),
      extension: <T extends Extension>(name: string) => extensions.find((e) => e.name === name) as T | undefined,
      settled: () => functions.settled(),
      applying: () => functions.pending !== undefined,
      close,
    };
  } catch (error) {
    ended(exit, noteFile);
    await loop?.close();
    // Failed after the services were made (a port in use): stop what they started (a component).
    if (running === undefined) for (const extension of started.reverse()) await extension.close?.();
    env.restore();
    throw error;
  }
}

/** The console's note of why this server was started again (`restarted` of its meta), when it was. */
function restartedExtension(): ServiceExtension {
  const reason = process.env[RESTARTED_VAR];
  const at = Date.now();
  return { name: 'restarted', panel: { meta: () => (reason ? { restarted: { reason, at } } : {}) } };
}

/** The process ends because it was asked to: a supervised one keeps its watch to write the note. */
function ended(exit: ExitWatch, noteFile: string | undefined): void {
  exit.stopping();
  if (noteFile === undefined) exit.remove();
}

/** The terminal's lines; in a session of several services they show each request's trace, so an inner call reads as one. */
function prettySink(options: DevServerOptions): LogSink {
  const trace = process.env[SESSION_VAR] !== undefined;
  return createPrettySink({ trace, ...(options.color === undefined ? {} : { color: options.color }) });
}

/** The flags dev passes on: its port and host (127.0.0.1 unless HOST is set), the functions' folder. */
function devFlags(options: DevServerOptions): OptionSources['flags'] {
  return {
    port: options.port === undefined ? undefined : String(options.port),
    host: options.host ?? (process.env['HOST'] ? undefined : '127.0.0.1'),
    functionsDir: options.functionsDir,
    loadTimeout: options.loadTimeoutMs,
  };
}

/**
 * Stops once, on `close()` or, with `handle`, on SIGINT/SIGTERM/SIGHUP or the parent's exit
 * (then without the lame-duck period); resolves when stopped.
 */
function stopOnSignals(handle: boolean, logger: Logger, stop: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  let removeSignals: (() => void) | undefined;
  const close = (): Promise<void> => (closing ??= stop().finally(() => removeSignals?.()));
  if (handle)
    removeSignals = exitOnSignals({
      logger,
      stop: close,
      message: (signal) => `${signal} received: stopping the dev server`,
      parent: true,
    });
  return close;
}

/** The named fields of `options` that are set. */
function pick<T extends object, K extends keyof T>(options: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (options[key] !== undefined) out[key] = options[key];
  return out;
}

/** The start line: the URL, the functions (and how many fail to build), the console. */
function logStart(logger: Logger, url: string, consoleUrl: string, list: readonly { name: string; status: string }[]) {
  const failed = list.filter((fn) => fn.status === 'error').length;
  const names = list.map((fn) => fn.name);
  logger.line(
    'info',
    '',
    RUNTIME_FUNCTION,
    `dev server on ${url} with ${list.length} function${list.length === 1 ? '' : 's'}${failed > 0 ? ` (${failed} failing)` : ''}: ${names.join(', ')}\n  console: ${consoleUrl}`,
    { url, console: consoleUrl, functions: names },
  );
}
