/**
 * `invoke`: one request through the real pipeline, in process. The function is mounted on a
 * fresh app with the runtime's own options, and the request is written to node:http's server
 * over an in-memory connection, so parsing, limits, the service and the response are those of
 * `cloudfn start`, byte for byte, with no port and no network.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { App } from '../../runtime/app.js';
import { type FunctionSpec, type RequestInfo } from '../../runtime/types.js';
import { loadConfigFile } from '../../runtime/serve/config-file.js';
import { Logger } from '../../runtime/log/logger.js';
import { type LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { resolveOptions, type RuntimeOptions } from '../../runtime/options.js';
import { createHttpServer } from '../../runtime/serve/http-server.js';
import type { FunctionConfig, Handler, Limits } from '../../runtime/types.js';
import { parseSetCookies, type ResponseCookie } from './cookies.js';
import { loadTarget } from './load-target.js';
import { memoryConnection } from './memory-connection.js';
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

/** A function to call: a handler, a path to its file, or a spec with a name and config. */
export type InvokeTarget = Handler | string | FunctionSpec;

async function mount(target: InvokeTarget, request: InvokeRequest, options: InvokeOptions) {
  let spec: FunctionSpec;
  let config: Record<string, unknown> = {};
  if (typeof target === 'string') {
    const loaded = await loadTarget(target, options.cwd ?? process.cwd());
    spec = loaded.spec;
    // A function loaded from a project runs with that project's cloudfn.config, as it would in start.
    const { file: _file, ...fileConfig } = await loadConfigFile(loaded.root);
    config = fileConfig;
  } else if (typeof target === 'function') {
    spec = { name: nameFromPath(request.path ?? '/'), handler: target };
  } else if (typeof target === 'object' && target !== null && typeof target.handler === 'function') {
    spec = target;
  } else {
    throw new TypeError(`invoke needs a handler, a path such as 'functions/hello.ts', or { name, handler }; got ${target === null ? 'null' : typeof target}`);
  }
  const name = options.name ?? spec.name;
  const perFunction = (config['functions'] as Record<string, FunctionConfig> | undefined)?.[spec.name];
  const routes: Record<string, string> = {};
  for (const [pattern, fn] of Object.entries((config['routes'] as Record<string, string> | undefined) ?? {})) if (fn === spec.name) routes[pattern] = name;
  if (options.route !== undefined) routes[options.route] = name;
  const { routes: _r, functions: _f, ...fileOptions } = config;
  const base = resolveOptions({ config: fileOptions });
  const runtime = { ...base, ...options.runtime, limits: { ...base.limits, ...options.runtime?.limits } } as RuntimeOptions;
  if (request.trigger !== undefined) runtime.trigger = request.trigger;
  const fn: FunctionSpec = { ...spec, name, config: { ...perFunction, ...spec.config, ...options.config } };
  return { fn, routes, runtime };
}

function isJsonType(type: string | null): boolean {
  if (type === null) return false;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

function collect(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
  });
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
 */
export async function invoke<T = unknown>(target: InvokeTarget, request: InvokeRequest = {}, options: InvokeOptions = {}): Promise<InvokeResult<T>> {
  const { fn, routes, runtime } = await mount(target, request, options);
  const wire = await toWireRequest(request, fn.name === 'index' ? '/' : `/${fn.name}`);
  const sink = createMemorySink();
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
  const [client, serverEnd] = memoryConnection();
  server.emit('connection', serverEnd);
  const started = performance.now();
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({ createConnection: () => client as never, method: wire.method, path: wire.path, headers: wire.headers, signal: request.signal ?? undefined }, resolve);
      req.on('error', reject);
      req.end(wire.body);
    });
    const body = await collect(response);
    // A streamed body ends before the runtime logs its request line; wait for the line.
    if (reached) await ended;
    const headers = new Headers();
    const raw = response.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    const text = body.toString('utf8');
    let json: T | undefined;
    if (isJsonType(headers.get('content-type'))) {
      try {
        json = JSON.parse(text) as T;
      } catch {
        json = undefined;
      }
    }
    return {
      status: response.statusCode ?? 0,
      headers,
      cookies: parseSetCookies(headers.getSetCookie()),
      body,
      text,
      json,
      logs: sink.records.slice(),
      logid: headers.get(app.options.logidHeader) ?? '',
      durationMs: info?.durationMs ?? Math.round((performance.now() - started) * 10) / 10,
    };
  } finally {
    client.destroy();
  }
}
