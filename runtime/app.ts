/**
 * An app is the runtime's state for a set of functions: options, logger, router, the count of
 * requests in flight and the shutdown flag. It is the `Host` every request reads (see
 * request/exchange.ts); `handle` is its request listener. The count and the flags are private
 * and read-only outside: only `requestStarted`/`requestFinished` move the count, only
 * `beginDrain` (the lame-duck period) and `beginShutdown` (refusing) set the flags.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyParser } from './body/parse-body.js';
import { Logger } from './log/logger.js';
import { createJsonSink } from './log/sinks.js';
import type { RequestMetrics } from './metrics/registry.js';
import { LIMIT_ENV, resolveOptions, type RuntimeOptions } from './options.js';
import { ConnectionLimit } from './admission/connection-limit.js';
import type { Exchange, Host } from './request/exchange.js';
import { cookieCodec } from './request/cookie-codec.js';
import { handle } from './request/handle.js';
import { loadErrorAnswer } from './request/response.js';
import { serviceParts } from './request/service.js';
import { contracted } from './contract/lazy-contract.js';
import { MemoryBudget } from './admission/memory-budget.js';
import { Overload } from './admission/overload.js';
import { Router } from './request/router.js';
import { loadOpenTelemetry } from './trace/otel.js';
import type { FunctionConfig, FunctionSpec, Handler, Limits, LoadedFunction, RequestInfo } from './types.js';

export interface AppInit {
  /** The functions to serve, e.g. from `loadFunctions()`. */
  functions: Iterable<FunctionSpec>;
  /** Custom routes: pattern → function name. */
  routes?: Readonly<Record<string, string>>;
  /** Options; missing ones get their defaults. */
  options?: Partial<RuntimeOptions>;
  /** Where logs go. @default JSON lines on stdout */
  logger?: Logger;
}

export class App implements Host {
  readonly options: RuntimeOptions;
  readonly logger: Logger;
  readonly router: Router;
  /** Reads request bodies into params, with its own cache of the last Content-Type. */
  readonly parser = new BodyParser();
  /** Called with every finished request (the dev console and `invoke` listen). */
  readonly observers = new Set<(info: RequestInfo) => void>();
  /** The request listener, bound once. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Bytes of bodies and unsent answers held across requests, against `memoryBudget`. */
  readonly memory: MemoryBudget;
  /** Open connections against `maxConnections`, and those closed for `sendTimeout`. */
  readonly connections: ConnectionLimit;
  /** Pressure (shortened timeouts) and the count of every shedding action. */
  readonly overload: Overload;
  #inflight = 0;
  #closing = false;
  #refusing = false;
  #drained: (() => void) | undefined;
  #metrics: RequestMetrics | undefined = undefined;
  readonly #onShutdown: (() => void)[] = [];

  constructor(init: AppInit) {
    const defaults = resolveOptions();
    this.options = { ...defaults, ...init.options, limits: { ...defaults.limits, ...init.options?.limits } };
    if (init.options?.limits !== undefined && init.options.limitSources === undefined) {
      // Limits passed to createApp directly: say so in messages rather than "the default".
      const sources: Partial<Record<keyof Limits, string>> = { ...this.options.limitSources };
      for (const key of Object.keys(init.options.limits) as (keyof Limits)[]) sources[key] = 'the app options';
      this.options.limitSources = sources;
    }
    this.logger = init.logger ?? new Logger(createJsonSink());
    const options = this.options;
    this.overload = new Overload(options, this.logger);
    this.memory = new MemoryBudget(options.memoryBudget, {
      waitTimeout: options.memoryWaitTimeout,
      stallTimeout: options.overloadSendTimeout,
      overload: this.overload,
      connectionsOpen: () => this.connections.open,
    });
    this.connections = new ConnectionLimit(options.maxConnections, {
      overload: this.overload,
      memoryHeld: () => this.memory.held,
    });
    this.onShutdown(() => this.overload.close());
    this.router = new Router(
      [...init.functions].map((spec) => this.resolve(spec)),
      init.routes,
    );
    this.router.check();
    this.handle = (req, res) => handle(this, req, res);
    // Off the start-up path (lazy-import.ts), with the parts of the service a handler uses now
    // and then (request/service-parts.ts); a request that comes first waits. A failure to
    // load is answered there, per request, with the error. raw-body is not started here: it
    // loads on the first chunked body (read-body.ts), so a process that only answers GET or
    // bodies with a Content-Length never holds it (about 8 MB of RSS under node with its dependencies, measured on node 20).
    cookieCodec.load().catch(() => undefined);
    serviceParts.load().catch(() => undefined);
    // The writing of error answers (response.ts), likewise: an error that comes first waits.
    loadErrorAnswer();
    // An SDK already registered: load the bridge now, so the first requests have their spans.
    void loadOpenTelemetry();
  }

  /** Requests received and not yet answered, plus work given to `service.waitUntil` not yet settled. */
  get inflight(): number {
    return this.#inflight;
  }

  /**
   * True once shutdown began (the lame-duck period included): the health paths answer 503 and
   * every response closes its connection.
   */
  get closing(): boolean {
    return this.#closing;
  }

  /** True once the lame-duck period is over: new requests get 503 (`CLOUDFN_SHUTTING_DOWN`). */
  get refusing(): boolean {
    return this.#refusing;
  }

  /** The request metrics, when metrics are on (`useMetrics`). */
  get metrics(): RequestMetrics | undefined {
    return this.#metrics;
  }

  /**
   * Counts every request from now on in `metrics` (serve() does it when the `metrics` option is
   * on; `cloudfn dev` always). Without it, a finished request pays one comparison.
   * @example app.useMetrics(await loadMetrics(app))
   */
  useMetrics(metrics: RequestMetrics): void {
    this.#metrics = metrics;
    this.onShutdown(() => metrics.close());
  }

  /** Runs `listener` when shutdown begins (the scheduler stops its timers there). */
  onShutdown(listener: () => void): void {
    if (this.#closing) listener();
    else this.#onShutdown.push(listener);
  }

  /**
   * Starts the lame-duck period: the health paths answer 503 so balancers stop sending, every
   * response closes its connection (announced, so no balancer reuses a socket the server is
   * about to close), and requests are still served. `beginShutdown` ends it.
   */
  beginDrain(): void {
    if (this.#closing) return;
    this.#closing = true;
    for (const listener of this.#onShutdown.splice(0)) listener();
  }

  /** Starts refusing new requests (503) and closing every connection after its response. */
  beginShutdown(): void {
    this.beginDrain();
    this.#refusing = true;
  }

  requestStarted(): void {
    this.#inflight++;
  }

  requestFinished(x: Exchange, status: number, durationMs: number): void {
    this.#inflight--;
    if (x.heldBytes > 0) this.memory.give(x.heldBytes);
    if (this.#metrics !== undefined) this.#metrics.finished(x.functionName(), status, durationMs, x.abortReason);
    if (this.observers.size > 0) {
      const info: RequestInfo = {
        logid: x.logid,
        traceId: x.traceId,
        functionName: x.functionName(),
        method: x.method,
        url: x.req.url ?? '/',
        status,
        durationMs,
        trigger: x.trigger,
      };
      for (const observer of this.observers) observer(info);
    }
    if (this.#inflight === 0 && this.#drained !== undefined) this.#drained();
  }

  backgroundStarted(): void {
    this.#inflight++;
  }

  backgroundFinished(): void {
    this.#inflight--;
    if (this.#inflight === 0 && this.#drained !== undefined) this.#drained();
  }

  /** Resolves when no request (nor work given to `service.waitUntil`) is in flight. */
  drained(): Promise<void> {
    if (this.#inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#drained = resolve;
    });
  }

  /** Resolves a function's limits and timeout against the global options. */
  resolve(spec: FunctionSpec): LoadedFunction {
    return resolveFunction(this.options, {
      name: spec.name,
      file: spec.file ?? spec.name,
      handler: spec.handler,
      config: spec.config,
    });
  }

  /** Adds or replaces a function while serving (dev reload): the next request runs it. */
  setFunction(spec: FunctionSpec): void {
    this.router.set(this.resolve(spec));
  }

  /** Stops serving a function (its file was removed). */
  deleteFunction(name: string): void {
    this.router.delete(name);
  }
}

/** What `resolveFunction` combines with the options. */
export interface FunctionToResolve {
  name: string;
  /** The source file, for messages. */
  file: string;
  handler: Handler;
  config?: FunctionConfig | undefined;
}

/**
 * Combines a function's own `config` with the global options.
 * @example resolveFunction(options, { name: 'hello', file: 'functions/hello.ts', handler, config: { timeout: 5000 } })
 */
export function resolveFunction(options: RuntimeOptions, fn: FunctionToResolve): LoadedFunction {
  const config = fn.config ?? {};
  const limits = { ...options.limits };
  const limitSources = {} as Record<keyof typeof limits, string>;
  for (const key of Object.keys(limits) as (keyof typeof limits)[]) {
    const value = config[key];
    if (value !== undefined) limits[key] = value;
    limitSources[key] =
      value !== undefined
        ? `the function's config.${key} (export const config in ${fn.file}, or functions["${fn.name}"] in cloudfn.config)`
        : globalSource(options, key);
  }
  return {
    name: fn.name,
    file: fn.file,
    // Wrapped once here, so a function without a schema runs its own handler, at no cost.
    // The contract's code loads when a function declares one (contract/lazy-contract.ts).
    handler: contracted(fn.handler, config, { file: fn.file, badResult: options.exposeErrors ? 'answer' : 'log' }),
    config,
    limits,
    limitSources,
    timeout: config.timeout ?? options.timeout,
  };
}

/** The phrase naming where a global limit was set, for 413 messages. */
function globalSource(options: RuntimeOptions, key: keyof Limits): string {
  const from = options.limitSources?.[key];
  if (from === undefined || from === 'the default')
    return `the global option limits.${key} (its default; set ${LIMIT_ENV[key]} or limits in cloudfn.config)`;
  return `the global option limits.${key} (from ${from})`;
}
