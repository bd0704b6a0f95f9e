/**
 * `invoke`: one request through the real pipeline, in process. The function is mounted on a
 * fresh app with the runtime's own options, and the request is written to node:http's server
 * over an in-memory connection, so parsing, limits, the service and the response are those of
 * `cloudfn start`, byte for byte, with no port and no network.
 */
import { App } from '../../runtime/app.js';
import { loadRoutePatterns } from '../../runtime/request/router.js';
import type { FunctionSpec, RequestInfo, Service } from '../../runtime/types.js';
import { functionFromModule, validateConfig } from '../../runtime/serve/load.js';
import { loadProjectConfig } from '../build/project-config.js';
import { Logger } from '../../runtime/log/logger.js';
import type { LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { resolveOptions, type RuntimeOptions } from '../../runtime/options.js';
import { createHttpServer } from '../../runtime/serve/http-server.js';
import type { FunctionConfig, Handler, Limits } from '../../runtime/types.js';
import { parseSetCookies, type ResponseCookie } from './cookies.js';
import { loadTarget } from './load-target.js';
import { inject } from '../../runtime/serve/inject.js';
import { nameFromPath } from './names.js';
import { toWireRequest, type InvokeRequest } from './request.js';

/** Runtime options for one call; limits may be given one by one. */
export type RuntimeOverrides = Partial<Omit<RuntimeOptions, 'limits'>> & { limits?: Partial<Limits> };

/** How `invoke` mounts the function. */
export interface InvokeOptions {
  /** The function's name (`service.functionName`). @default from the file (`functions/videos/list.ts` → `videos/list`), else from the path, else `index` */
  name?: string;
  /** A custom route to the function, as in cloudfn.config (`/videos/:vid`), for `service.routeParams`. */
  route?: string;
  /** Per-function options over the module's own `export const config`. */
  config?: FunctionConfig;
  /** Runtime options over the defaults and the project's cloudfn.config (limits, timeout, exposeErrors...). */
  runtime?: RuntimeOverrides;
  /** Where a relative path is looked up. @default process.cwd() */
  cwd?: string;
}

/** What the call answered: a plain object. */
export interface InvokeResult<T = unknown> {
  status: number;
  headers: Headers;
  /** The Set-Cookie headers, parsed, by cookie name. */
  cookies: Record<string, ResponseCookie>;
  /** The exact bytes of the body. */
  body: Buffer;
  /** The body decoded as UTF-8. */
  text: string;
  /** The parsed body when the response is JSON (`application/json`, `*+json`), else undefined. */
  json: T | undefined;
  /** Every log record of the call, with `logid` and `function`; the last one is the request line. */
  logs: LogRecord[];
  /** The request's log id (the `x-platform-logid` response header). */
  logid: string;
  /** Time from the request to the end of the response, as the request line reports it. */
  durationMs: number;
}

/** Any handler, whatever its params and result. */
// biome-ignore lint/suspicious/noExplicitAny: any params so a handler typed for its own params is accepted
export type AnyHandler = (params: any, service: Service) => unknown;

/** A function module as `import * as hello from './functions/hello.js'` gives it. */
export interface InvokeModule<H extends AnyHandler = AnyHandler> {
  default: H;
  config?: FunctionConfig;
}

/** A handler with its config (and, optionally, its name), as `createApp` takes it. */
export interface InvokeSpec<H extends AnyHandler = AnyHandler> {
  name?: string;
  handler: H;
  config?: FunctionConfig;
}

/**
 * A function to call: a path to its file, a handler, its module namespace (whose
 * `export const config` applies, as under `cloudfn start`), or `{ handler, config }`.
 */
export type InvokeTarget<H extends AnyHandler = AnyHandler> = string | H | InvokeModule<H> | InvokeSpec<H>;

/** The type `JSON.parse(JSON.stringify(value))` gives back: what the client receives. */
export type Jsonified<T> = T extends string | number | boolean | null
  ? T
  : // biome-ignore lint/suspicious/noExplicitAny: any in a conditional type matches every function type
    T extends undefined | symbol | ((...args: any[]) => unknown)
    ? never
    : T extends Uint8Array | ArrayBuffer | NodeJS.ReadableStream | ReadableStream
      ? unknown
      : T extends { toJSON(): infer J }
        ? J
        : T extends readonly (infer E)[]
          ? Jsonified<E>[]
          : T extends object
            ? {
                // biome-ignore lint/suspicious/noExplicitAny: any in a conditional type matches every function type
                [K in keyof T as T[K] extends undefined | symbol | ((...args: any[]) => unknown)
                  ? never
                  : K]: Jsonified<T[K]>;
              }
            : unknown;

/** The JSON body a handler answers with, from its declared result. */
export type JsonOf<H extends AnyHandler> = Jsonified<Awaited<ReturnType<H>>>;

/** The params a handler declares (`Handler<{ name?: string }>` → `{ name?: string }`). */
export type ParamsOf<H extends AnyHandler> = Parameters<H>[0];

/** Loads a target as `invoke` mounts it: the function, its custom routes and the runtime options. */
export async function mount(target: InvokeTarget, request: InvokeRequest, options: InvokeOptions) {
  let spec: FunctionSpec;
  let config: Record<string, unknown> = {};
  if (typeof target === 'string') {
    const loaded = await loadTarget(target, options.cwd ?? process.cwd());
    spec = loaded.spec;
    // A function loaded from a project runs with that project's cloudfn.config, as it would in start.
    const { file: _file, ...fileConfig } = await loadProjectConfig(loaded.root);
    config = fileConfig;
  } else if (typeof target === 'function') {
    // A handler from defineFunction carries its config (its params schema), as under start.
    const own = (target as { config?: unknown }).config;
    spec = {
      name: nameFromPath(request.path ?? '/'),
      handler: target as Handler,
      ...(own === undefined ? {} : { config: validateConfig(own, 'the handler given to invoke') }),
    };
  } else if (typeof target === 'object' && target !== null && typeof (target as InvokeSpec).handler === 'function') {
    const given = target as InvokeSpec;
    spec = { ...given, name: given.name ?? nameFromPath(request.path ?? '/'), handler: given.handler as Handler };
  } else if (typeof target === 'object' && target !== null && 'default' in target) {
    // A module namespace: the runtime's own rules find the handler and check its config.
    const name = options.name ?? nameFromPath(request.path ?? '/');
    spec = functionFromModule(
      target as unknown as Record<string, unknown>,
      name,
      `the module given to invoke (${name})`,
    );
  } else {
    throw new TypeError(
      `invoke needs a path such as 'functions/hello.ts', a handler, a module (import * as hello from './functions/hello.js') or { handler, config }; got ${target === null ? 'null' : typeof target === 'object' ? `an object with keys ${Object.keys(target).join(', ') || '(none)'}` : typeof target}`,
    );
  }
  const name = options.name ?? spec.name;
  const perFunction = (config['functions'] as Record<string, FunctionConfig> | undefined)?.[spec.name];
  const routes: Record<string, string> = {};
  for (const [pattern, fn] of Object.entries((config['routes'] as Record<string, string> | undefined) ?? {}))
    if (fn === spec.name) routes[pattern] = name;
  if (options.route !== undefined) routes[options.route] = name;
  const { routes: _r, functions: _f, ...fileOptions } = config;
  const base = resolveOptions({ config: fileOptions });
  const runtime = {
    ...base,
    ...options.runtime,
    limits: { ...base.limits, ...options.runtime?.limits },
  } as RuntimeOptions;
  if (request.trigger !== undefined) runtime.trigger = request.trigger;
  // A call made as a user stands behind the gateway: its X-TT-* headers are kept.
  if (request.user !== undefined) runtime.trustGatewayHeaders = true;
  const fn: FunctionSpec = { ...spec, name, config: { ...perFunction, ...spec.config, ...options.config } };
  return { fn, routes, runtime };
}

function isJsonType(type: string | null): boolean {
  if (type === null) return false;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

/**
 * Calls a function through the real request pipeline, in process: `request` is fetch's
 * `RequestInit` plus `path`, `query`, `cookies` and `trigger`. A path loads the file as
 * `cloudfn start` would (TypeScript compiled by esbuild, the project's cloudfn.config applied).
 * @example
 * const res = await invoke('functions/hello.ts', { query: { name: 'Ada' } });
 * expect(res.status).toBe(200);
 * expect(res.json).toEqual({ hello: 'Ada', trigger: 'online', logid: res.logid });
 * @example
 * const res = await invoke(upload, { body: form }); // FormData → multipart/form-data
 * @example
 * import * as upload from '../functions/upload.js';
 * const res = await invoke(upload, { body: form }); // its export const config applies: 413 over maxBodySize
 * @example
 * const hello: Handler<{ name?: string }, { hello: string }> = ...;
 * const res = await invoke(hello, { query: { name: 'Ada' } }); // res.json: { hello: string } | undefined
 */
export function invoke<T = never, H extends AnyHandler = AnyHandler>(
  target: InvokeTarget<H>,
  request?: InvokeRequest<ParamsOf<H>>,
  options?: InvokeOptions,
): Promise<InvokeResult<[T] extends [never] ? JsonOf<H> : T>>;
export async function invoke(
  target: InvokeTarget,
  request: InvokeRequest = {},
  options: InvokeOptions = {},
): Promise<InvokeResult<unknown>> {
  const { fn, routes, runtime } = await mount(target, request, options);
  const wire = await toWireRequest(request, fn.name === 'index' ? '/' : `/${fn.name}`);
  const sink = createMemorySink();
  await loadRoutePatterns(routes);
  const app = new App({ functions: [fn], routes, options: runtime, logger: new Logger(sink) });
  const server = createHttpServer(app);
  let reached = false;
  server.on('request', () => {
    reached = true;
  });
  let info: RequestInfo | undefined;
  const ended = new Promise<void>((resolve) => {
    app.observers.add((done) => {
      info = done;
      resolve();
    });
  });
  const started = performance.now();
  const response = await inject(server, {
    method: wire.method,
    path: wire.path,
    headers: wire.headers,
    ...(wire.body === undefined ? {} : { body: wire.body }),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const body = response.body;
  // A streamed body ends before the runtime logs its request line; wait for the line.
  if (reached) await ended;
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const text = body.toString('utf8');
  let json: unknown;
  if (isJsonType(headers.get('content-type'))) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return {
    status: response.status,
    headers,
    cookies: parseSetCookies(headers.getSetCookie()),
    body,
    text,
    json,
    logs: sink.records.slice(),
    logid: headers.get(app.options.logidHeader) ?? '',
    durationMs: info?.durationMs ?? Math.round((performance.now() - started) * 10) / 10,
  };
}
