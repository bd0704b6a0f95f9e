/**
 * One table of cases, three ways: `invoke` (in process), a handler called with
 * `createFakeService`, and a real server from `serve` on port 0. All three must agree on the
 * status, the headers the handler set, the cookies, the body and the handler's log records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../runtime/errors.js';
import { Logger } from '../../runtime/log/logger.js';
import type { LogRecord } from '../../runtime/log/record.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { serve, type RunningServer } from '../../runtime/serve/start.js';
import type { Handler, UploadFile } from '../../runtime/types.js';
import {
  createFakeService,
  invoke,
  parseSetCookies,
  type InvokeRequest,
  type ResponseCookie,
} from '../../src/testing/index.js';

interface Case {
  name: string;
  handler: Handler;
  request: InvokeRequest;
  /** The params the runtime gives the handler for `request`, for the fake service. */
  params: unknown;
  /** What the fake service is told about the request. */
  fake?: Parameters<typeof createFakeService>[0];
  /** The status all three must report. */
  status: number;
}

const file = (name: string, type: string, text: string): UploadFile => ({
  name,
  type,
  size: Buffer.byteLength(text),
  buffer: Buffer.from(text),
});

const cases: Case[] = [
  {
    name: 'get-query',
    handler: (params, service) => {
      service.set('X-Kind', 'query');
      return { params, query: service.query, method: service.httpMethod, path: service.path, url: service.url };
    },
    request: { path: '/get-query', query: { name: 'Ada', tag: ['a', 'b'] } },
    params: { name: 'Ada', tag: ['a', 'b'] },
    fake: { httpMethod: 'GET', url: '/get-query?name=Ada&tag=a&tag=b' },
    status: 200,
  },
  {
    name: 'post-json',
    handler: (params, service) => {
      service.status(201).set('Cache-Control', 'no-store');
      service.log({ created: (params as { id: number }).id });
      return { created: params };
    },
    request: { path: '/post-json', body: { id: 7, tags: ['x'] } },
    params: { id: 7, tags: ['x'] },
    fake: { httpMethod: 'POST', path: '/post-json' },
    status: 201,
  },
  {
    name: 'post-text',
    handler: (params, service) => {
      service.info('got text', (params as string).length);
      return `echo: ${params as string}`;
    },
    request: { path: '/post-text', body: 'héllo' },
    params: 'héllo',
    fake: { httpMethod: 'POST', path: '/post-text' },
    status: 200,
  },
  {
    name: 'post-form',
    handler: (params) => ({ form: params }),
    request: {
      path: '/post-form',
      body: new URLSearchParams([
        ['a', '1'],
        ['a', '2'],
        ['b', 'x y'],
      ]),
    },
    params: { a: ['1', '2'], b: 'x y' },
    fake: { httpMethod: 'POST', path: '/post-form' },
    status: 200,
  },
  {
    name: 'post-multipart',
    handler: (params) => {
      const { doc, title } = params as { doc: UploadFile; title: string };
      return { title, name: doc.name, type: doc.type, size: doc.size, text: doc.buffer.toString() };
    },
    request: {
      path: '/post-multipart',
      body: (() => {
        const form = new FormData();
        form.append('title', 'notes');
        form.append('doc', new Blob(['hello file'], { type: 'text/markdown' }), 'notes.md');
        return form;
      })(),
    },
    params: { title: 'notes', doc: file('notes.md', 'text/markdown', 'hello file') },
    fake: { httpMethod: 'POST', path: '/post-multipart' },
    status: 200,
  },
  {
    name: 'post-binary',
    handler: (params, service) => {
      service.set('x-bytes', String((params as Buffer).length));
      return Buffer.concat([params as Buffer, Buffer.from([0xff])]);
    },
    request: { path: '/post-binary', body: Buffer.from([1, 2, 3]) },
    params: Buffer.from([1, 2, 3]),
    fake: { httpMethod: 'POST', path: '/post-binary' },
    status: 200,
  },
  {
    name: 'cookies',
    handler: (_params, service) => {
      service.setCookie('seen', String(Number(service.cookies.seen ?? '0') + 1), {
        httpOnly: true,
        path: '/',
        maxAge: 60,
        sameSite: 'lax',
      });
      service.clearCookie('old');
      return { sid: service.cookies.sid ?? null };
    },
    request: { path: '/cookies', cookies: { sid: 'abc', seen: '2' } },
    params: {},
    fake: { path: '/cookies', cookies: { sid: 'abc', seen: '2' } },
    status: 200,
  },
  {
    name: 'headers-and-logs',
    handler: (_params, service) => {
      service.set('X-One', '1').set('X-Two', ['a', 'b']).set('X-Gone', 'soon').remove('x-gone');
      service.log('plain', 1, { a: 1 });
      service.warn('{"json":"text","function":"spoofed"}');
      service.error({ failed: false, logid: 'spoofed' });
      service.debug();
      service.status(202);
      return undefined;
    },
    request: { path: '/headers-and-logs', headers: { 'x-request': 'r' } },
    params: {},
    fake: { path: '/headers-and-logs', headers: { 'X-Request': 'r' } },
    status: 202,
  },
  {
    name: 'http-error',
    handler: (_params, service) => {
      service.set('x-reason', 'missing');
      throw new HttpError(404, 'video v1 does not exist');
    },
    request: { path: '/http-error' },
    params: {},
    fake: { path: '/http-error' },
    status: 404,
  },
];

interface Outcome {
  status: number;
  /** Headers the handler set (for invoke and the server: those the fake recorded). */
  headers: Record<string, string>;
  cookies: Record<string, ResponseCookie>;
  body: unknown;
  logs: Record<string, unknown>[];
}

/** Handler records only: no request line, no runtime lines; time, logid and trace ids vary by call. */
function handlerLogs(records: LogRecord[]): Record<string, unknown>[] {
  return records
    .filter(
      (record) =>
        record.function !== 'cloudfn' &&
        record.durationMs === undefined &&
        !String(record.msg ?? '').startsWith('the function failed'),
    )
    .map(({ time: _time, logid, trace_id, span_id, ...rest }) => ({
      ...rest,
      logid: logid === '' ? '' : 'x',
      trace_id: /^[\da-f]{32}$/.test(String(trace_id)) ? 'hex' : trace_id,
      span_id: /^[\da-f]{16}$/.test(String(span_id)) ? 'hex' : span_id,
    }));
}

function bodyOf(type: string | null, body: Buffer): unknown {
  if (body.length === 0) return undefined;
  if (type?.startsWith('application/json')) return JSON.parse(body.toString()) as unknown;
  if (type?.startsWith('text/')) return body.toString();
  return { hex: body.toString('hex') };
}

function pickHeaders(headers: Headers, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, headers.get(name) ?? '(absent)']));
}

async function throughFake(c: Case): Promise<Outcome & { names: string[] }> {
  const service = createFakeService(c.fake);
  let status: number;
  let body: unknown;
  try {
    const value = await c.handler(c.params, service);
    status = service.recorded.status;
    body =
      value === undefined
        ? undefined
        : Buffer.isBuffer(value)
          ? { hex: value.toString('hex') }
          : typeof value === 'string'
            ? value
            : (JSON.parse(JSON.stringify(value)) as unknown);
  } catch (error) {
    // The runtime answers an HttpError with its status and the error body.
    expect(error).toBeInstanceOf(HttpError);
    status = (error as HttpError).status;
    body = { error: { code: 'CLOUDFN_HTTP_ERROR', message: (error as HttpError).message } };
  }
  const recorded = service.recorded;
  const headers = Object.fromEntries(
    Object.entries(recorded.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
  );
  return {
    status,
    headers,
    names: Object.keys(headers),
    cookies: recorded.cookies,
    body,
    logs: handlerLogs(recorded.logs),
  };
}

function stripLogid(body: unknown): unknown {
  const error = (body as { error?: { logid?: string } } | undefined)?.error;
  if (error?.logid !== undefined) {
    const { logid: _logid, ...rest } = error;
    return { error: rest };
  }
  return body;
}

let server: RunningServer;
const serverSink = createMemorySink();

beforeAll(async () => {
  server = await serve(
    cases.map((c) => ({ name: c.name, handler: c.handler })),
    {
      flags: { port: '0', host: '127.0.0.1' },
      env: {},
      logger: new Logger(serverSink),
      handleSignals: false,
      keepServing: false,
    },
  );
});
afterAll(() => server.close());

describe('invoke, the fake service and a real server agree', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const fake = await throughFake(c);

    const viaInvoke = await invoke(c.handler, c.request);
    const invoked: Outcome = {
      status: viaInvoke.status,
      headers: pickHeaders(viaInvoke.headers, fake.names),
      cookies: viaInvoke.cookies,
      body: stripLogid(bodyOf(viaInvoke.headers.get('content-type'), viaInvoke.body)),
      logs: handlerLogs(viaInvoke.logs),
    };

    // The real server gets the same bytes invoke sent: fetch encodes bodies the same way.
    const { body, query, cookies, path, ...init } = c.request;
    const url = new URL(server.url + path);
    for (const [k, v] of Object.entries(query ?? {}))
      for (const item of [v].flat()) url.searchParams.append(k, String(item));
    const headers = new Headers(init.headers);
    if (cookies)
      headers.set(
        'cookie',
        Object.entries(cookies)
          .map(([k, v]) => `${k}=${v}`)
          .join('; '),
      );
    const before = serverSink.records.length;
    const plain = body !== undefined && Object.getPrototypeOf(body) === Object.prototype;
    if (plain) headers.set('content-type', 'application/json');
    const sent = plain ? JSON.stringify(body) : (body as BodyInit | undefined);
    const response = await fetch(url, { ...init, headers, method: body === undefined ? 'GET' : 'POST', body: sent });
    const served = Buffer.from(await response.arrayBuffer());
    const logid = response.headers.get('x-platform-logid');
    const viaServer: Outcome = {
      status: response.status,
      headers: pickHeaders(response.headers, fake.names),
      cookies: parseSetCookies(response.headers.getSetCookie()),
      body: stripLogid(bodyOf(response.headers.get('content-type'), served)),
      logs: handlerLogs(serverSink.records.slice(before).filter((r) => r.logid === logid)),
    };

    const { names: _names, ...expected } = fake;
    expect(invoked.status).toBe(c.status);
    expect(invoked).toEqual(expected);
    expect(viaServer).toEqual(expected);
    // The full responses agree too, but for the headers that vary per call.
    const volatile = new Set(['date', 'x-platform-logid', 'connection', 'keep-alive']);
    const all = (h: Headers) => [...(h as unknown as Iterable<[string, string]>)].filter(([k]) => !volatile.has(k));
    expect(all(viaInvoke.headers)).toEqual(all(response.headers));
    expect(viaInvoke.body.equals(served) || c.name === 'http-error').toBe(true);
  });

  it('covers every row of the params table and every response setter', () => {
    const names = cases.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'get-query',
        'post-json',
        'post-text',
        'post-form',
        'post-multipart',
        'post-binary',
        'cookies',
        'headers-and-logs',
      ]),
    );
  });
});
