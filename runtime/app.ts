/**
 * An app is the runtime's state for a set of functions: options, logger, router, the count of
 * requests in flight and the shutdown flag. `handle` is its request listener.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from './logger.js';
import { createJsonSink } from './log-sinks.js';
import { resolveOptions, type RuntimeOptions } from './options.js';
import { handle } from './pipeline.js';
import { Router } from './router.js';
import type { Exchange } from './exchange.js';
import type { FunctionConfig, Handler, Limits } from './types.js';

/** A function to serve: its name (`videos/list`), handler and optional per-function config. */
export interface FunctionSpec {
  name: string;
  handler: Handler;
  config?: FunctionConfig;
  /** The source file, for messages. @default the name */
  file?: string;
}

/** A function ready to serve: its handler and its options resolved against the global ones. */
export interface LoadedFunction {
  /** The name, from the path under functions/ (`videos/list`). */
  name: string;
  /** The source file, for messages. */
  file: string;
  handler: Handler;
  config: FunctionConfig;
  /** Global limits overridden by the function's config. */
  limits: Limits;
  /** Milliseconds before the call is answered 504. */
  timeout: number;
}

/** What an observer learns when a request ends (the dev console listens). */
export interface RequestInfo {
  logid: string;
  functionName: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  trigger: string;
}

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

export class App {
  readonly options: RuntimeOptions;
  readonly logger: Logger;
  readonly router: Router;
  /** Requests received and not yet answered. */
  inflight = 0;
  /** Set by shutdown: new requests get 503 and every response closes its connection. */
  closing = false;
  readonly observers = new Set<(info: RequestInfo) => void>();
  #drained: (() => void) | undefined;
  /** The request listener, bound once. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;

  constructor(init: AppInit) {
    const defaults = resolveOptions();
    this.options = { ...defaults, ...init.options, limits: { ...defaults.limits, ...init.options?.limits } };
    this.logger = init.logger ?? new Logger(createJsonSink());
    this.router = new Router([...init.functions].map((spec) => this.resolve(spec)), init.routes);
    this.router.check();
    this.handle = (req, res) => handle(this, req, res);
  }

  /** Called once per request by the response code. */
  onRequestDone(x: Exchange, status: number, durationMs: number): void {
    this.inflight--;
    if (this.observers.size > 0) {
      const info: RequestInfo = { logid: x.logid, functionName: x.functionName(), method: x.method, url: x.req.url ?? '/', status, durationMs, trigger: x.trigger };
      for (const observer of this.observers) observer(info);
    }
    if (this.inflight === 0 && this.#drained !== undefined) this.#drained();
  }

  /** Resolves when no request is in flight. */
  drained(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#drained = resolve;
    });
  }

  /** Resolves a function's limits and timeout against the global options. */
  resolve(spec: FunctionSpec): LoadedFunction {
    return resolveFunction(this.options, spec.name, spec.file ?? spec.name, spec.handler, spec.config);
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

/**
 * Combines a function's own `config` with the global options.
 * @example resolveFunction(options, 'hello', 'functions/hello.ts', handler, { timeout: 5000 })
 */
export function resolveFunction(options: RuntimeOptions, name: string, file: string, handler: Handler, config: FunctionConfig = {}): LoadedFunction {
  const limits = { ...options.limits };
  for (const key of Object.keys(limits) as (keyof Limits)[]) {
    const value = config[key];
    if (value !== undefined) limits[key] = value;
  }
  return { name, file, handler, config, limits, timeout: config.timeout ?? options.timeout };
}

/**
 * Creates an app: the request pipeline for a set of functions, to mount on any node:http server.
 * @example
 * const app = createApp({ functions: [{ name: 'hello', handler: (params) => ({ hi: params.name }) }] });
 * http.createServer(app.handle).listen(8000);
 */
export function createApp(init: AppInit): App {
  return new App(init);
}
