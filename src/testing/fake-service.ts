/**
 * `createFakeService`: a complete service for calling a handler directly, without HTTP. It is
 * the runtime's own service class over a request described by the test, so `set`, `setCookie`,
 * `status` and the log methods validate and format exactly as in production; what the handler
 * did is read back from `service.recorded`.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import * as cookie from 'cookie';
import { resolveFunction } from '../../runtime/app.js';
import { BodyParser } from '../../runtime/body/parse-body.js';
import { Logger } from '../../runtime/log/logger.js';
import { generateLogid } from '../../runtime/log/logid.js';
import type { LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { resolveOptions } from '../../runtime/options.js';
import { cookieCodec } from '../../runtime/request/cookie-codec.js';
import * as parts from '../../runtime/request/service-parts.js';
import { Exchange, type Host } from '../../runtime/request/exchange.js';
import { Router } from '../../runtime/request/router.js';
import { RequestService, serviceParts } from '../../runtime/request/service.js';
import type { QueryParams, Service, Trigger } from '../../runtime/types.js';
import { parseSetCookies, type ResponseCookie } from './cookies.js';
import { nameFromPath } from './names.js';

/** The request a fake service describes. Every field is optional. */
export interface FakeRequest {
  /** @default 'GET' */
  httpMethod?: string;
  /** The path without the query string. @default the path of `url`, or '/' */
  path?: string;
  /** The path with the query string. @default `path` plus `query` encoded */
  url?: string;
  /** @default parsed from `url` */
  query?: Record<string, string | string[]>;
  /** Request headers; names are lower-cased as node:http would. */
  headers?: Record<string, string | string[] | undefined> | Headers;
  /** Cookies, sent as a Cookie header (so `headers.cookie` and `cookies` agree). */
  cookies?: Record<string, string>;
  /** @default 'online' */
  trigger?: Trigger;
  /** @default a new log id */
  logid?: string;
  /** @default named from the path as the router would (`/videos/list` → `videos/list`, `/` → `index`) */
  functionName?: string;
  /** @default an empty Buffer */
  rawBody?: Buffer | string;
  /** @default a signal that never aborts */
  signal?: AbortSignal;
  /** @default {} */
  routeParams?: Record<string, string | string[]>;
}

type Methods = 'set' | 'remove' | 'setCookie' | 'clearCookie' | 'status' | 'log' | 'debug' | 'info' | 'warn' | 'error';

/** The request to describe, and any member to replace (a replaced method records nothing). */
export type FakeServiceOverrides = FakeRequest & Partial<Pick<Service, Methods>>;

/** What the handler did to its response. */
export interface RecordedResponse {
  /** The status it set. @default 200 */
  status: number;
  /** The headers it set, by lower-case name. */
  headers: Record<string, string | string[]>;
  /** The cookies it set or cleared, parsed, by name. */
  cookies: Record<string, ResponseCookie>;
  /** What it logged, as the runtime formats records (with `logid` and `function`). */
  logs: LogRecord[];
}

/** A service that remembers what the handler did. */
export interface FakeService extends Service {
  /** A snapshot, taken on each read. */
  readonly recorded: RecordedResponse;
}

const METHODS: readonly Methods[] = [
  'set',
  'remove',
  'setCookie',
  'clearCookie',
  'status',
  'log',
  'debug',
  'info',
  'warn',
  'error',
];

function lowerCased(headers: FakeRequest['headers']): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      out[name] = value;
    });
  } else if (headers !== undefined) {
    for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  }
  return out;
}

function encodeQuery(query: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
  return params.toString();
}

/**
 * Creates a service for calling a handler directly; `service.recorded` tells what it set.
 * @example
 * const service = createFakeService({ httpMethod: 'POST', cookies: { sid: 'abc' } });
 * const result = await handler({ name: 'Ada' }, service);
 * expect(service.recorded.status).toBe(201);
 * expect(service.recorded.cookies.seen?.value).toBe('1');
 */
export function createFakeService(overrides: FakeServiceOverrides = {}): FakeService {
  const headers = lowerCased(overrides.headers);
  if (overrides.cookies !== undefined && headers.cookie === undefined)
    headers.cookie = cookie.stringifyCookie(overrides.cookies);
  let url = overrides.url;
  if (url === undefined) {
    const search = overrides.query === undefined ? '' : encodeQuery(overrides.query);
    url = (overrides.path ?? '/') + (search === '' ? '' : `?${search}`);
  }
  const q = url.indexOf('?');
  const path = overrides.path ?? (q === -1 ? url : url.slice(0, q));
  const sink = createMemorySink();
  // A host of its own, with the default options: nothing is served, so nothing is counted.
  const host: Host = {
    options: { ...resolveOptions(), trigger: overrides.trigger ?? 'online' },
    logger: new Logger(sink),
    router: new Router([]),
    parser: new BodyParser(),
    closing: false,
    refusing: false,
    requestStarted() {},
    requestFinished() {},
    backgroundStarted() {},
    backgroundFinished() {},
  };
  // A real request object, unattached to any connection.
  const req = new IncomingMessage(new Socket());
  // Its head as node's parser would set it (never a rewrite: this request is made here).
  Object.assign(req, { method: (overrides.httpMethod ?? 'GET').toUpperCase(), url, headers });
  const x = new Exchange(host, req, new ServerResponse(req), overrides.logid ?? generateLogid());
  x.rawPath = path;
  x.rawQuery = q === -1 ? '' : url.slice(q + 1);
  const name = overrides.functionName ?? nameFromPath(path);
  x.fn = resolveFunction(host.options, { name, file: name, handler: () => undefined });
  if (overrides.routeParams !== undefined) x.routeParams = overrides.routeParams;
  const query =
    overrides.query === undefined ? undefined : (Object.assign(Object.create(null), overrides.query) as QueryParams);
  // The service reads cookies synchronously; a server loads the codec at start, this has it here.
  cookieCodec.provide(cookie);
  serviceParts.provide(parts);
  const rawBody = overrides.rawBody === undefined ? Buffer.alloc(0) : Buffer.from(overrides.rawBody);
  const service = new RequestService(x, query, rawBody) as RequestService & { recorded: RecordedResponse };

  if (overrides.signal !== undefined)
    Object.defineProperty(service, 'signal', { value: overrides.signal, enumerable: true });
  for (const method of METHODS) {
    const given = overrides[method];
    if (given !== undefined) Object.defineProperty(service, method, { value: given, enumerable: true, writable: true });
  }
  Object.defineProperty(service, 'recorded', {
    enumerable: false,
    get(): RecordedResponse {
      const set: Record<string, string | string[]> = {};
      for (const [key, [, value]] of Object.entries(x.headers ?? {})) set[key] = value;
      const own = set['set-cookie'];
      const cookieHeaders = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), ...(x.cookies ?? [])];
      return { status: x.status, headers: set, cookies: parseSetCookies(cookieHeaders), logs: sink.records.slice() };
    },
  });
  return service;
}
