import { Readable } from 'node:stream';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Handler, Service, UploadFile } from '../../runtime/types.js';
import { invoke } from '../../src/testing/index.js';
import { tempProject } from './project.js';

/** A handler that reports what it received. */
const echo: Handler = (params, service) => ({
  params: Buffer.isBuffer(params) ? { bytes: [...params] } : params,
  type: service.headers['content-type'] ?? null,
  method: service.httpMethod,
  url: service.url,
  path: service.path,
  cookies: { ...service.cookies },
  trigger: service.trigger,
  functionName: service.functionName,
  routeParams: { ...service.routeParams },
  raw: service.rawBody.toString('latin1'),
});

type Echo = {
  params: unknown;
  type: string | null;
  method: string;
  url: string;
  path: string;
  cookies: Record<string, string>;
  trigger: string;
  functionName: string;
  routeParams: Record<string, string>;
  raw: string;
};

describe('invoke: request bodies are encoded as fetch encodes them', () => {
  it('sends a plain object as JSON', async () => {
    const res = await invoke<Echo>(echo, { body: { name: 'Ada', n: [1, 2] } });
    expect(res.json?.method).toBe('POST');
    expect(res.json?.type).toBe('application/json');
    expect(res.json?.params).toEqual({ name: 'Ada', n: [1, 2] });
    expect(res.json?.raw).toBe('{"name":"Ada","n":[1,2]}');
  });

  it('sends an array as JSON', async () => {
    const res = await invoke<Echo>(echo, { body: [1, 'two'] });
    expect(res.json?.params).toEqual([1, 'two']);
  });

  it('sends a string as text/plain;charset=UTF-8', async () => {
    const res = await invoke<Echo>(echo, { body: 'héllo' });
    expect(res.json?.type).toBe('text/plain;charset=UTF-8');
    expect(res.json?.params).toBe('héllo');
  });

  it('sends a Buffer as binary without a Content-Type, and the handler gets a Buffer', async () => {
    const res = await invoke<Echo>(echo, { body: Buffer.from([0, 1, 254]) });
    expect(res.json?.type).toBeNull();
    expect(res.json?.params).toEqual({ bytes: [0, 1, 254] });
  });

  it('sends URLSearchParams as urlencoded', async () => {
    const res = await invoke<Echo>(echo, { body: new URLSearchParams({ a: '1 2', b: 'é' }) });
    expect(res.json?.type).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(res.json?.params).toEqual({ a: '1 2', b: 'é' });
  });

  it('sends FormData as multipart, files as UploadFile', async () => {
    const form = new FormData();
    form.append('field', 'value');
    form.append('file', new Blob([Buffer.from('PNG...')], { type: 'image/png' }), 'a.png');
    const res = await invoke(
      (params: { field: string; file: UploadFile }) => ({
        field: params.field,
        name: params.file.name,
        type: params.file.type,
        size: params.file.size,
        isBuffer: Buffer.isBuffer(params.file.buffer),
      }),
      { body: form },
    );
    expect(res.json).toEqual({ field: 'value', name: 'a.png', type: 'image/png', size: 6, isBuffer: true });
  });

  it('keeps a given Content-Type over the inferred one', async () => {
    const res = await invoke<Echo>(echo, { body: { a: 1 }, headers: { 'Content-Type': 'application/vnd.api+json' } });
    expect(res.json?.type).toBe('application/vnd.api+json');
    expect(res.json?.params).toEqual({ a: 1 });
    const raw = await invoke<Echo>(echo, {
      body: 'a=1&a=2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(raw.json?.params).toEqual({ a: ['1', '2'] });
  });

  it('refuses a body on GET and bodies that are not data, naming the value', async () => {
    await expect(invoke(echo, { method: 'GET', body: 'x' })).rejects.toThrow(/a GET request cannot have a body/);
    await expect(invoke(echo, { body: 42 as never })).rejects.toThrow(/request.body cannot be a number \(42\)/);
    await expect(invoke(echo, { path: 'hello' })).rejects.toThrow(/request.path must start with "\/", got "hello"/);
  });
});

describe('invoke: path, query, cookies, trigger', () => {
  it('appends query to the path and names the function from the path', async () => {
    const res = await invoke<Echo>(echo, {
      path: '/videos/list?page=1',
      query: { tag: ['a', 'b'], n: 2, skip: undefined },
    });
    expect(res.json?.url).toBe('/videos/list?page=1&tag=a&tag=b&n=2');
    expect(res.json?.path).toBe('/videos/list');
    expect(res.json?.params).toEqual({ page: '1', tag: ['a', 'b'], n: '2' });
    expect(res.json?.functionName).toBe('videos/list');
    expect(res.logs.at(-1)?.function).toBe('videos/list');
  });

  it('serves a handler at / as index by default, or under a given name', async () => {
    expect((await invoke<Echo>(echo)).json).toMatchObject({ functionName: 'index', url: '/', method: 'GET' });
    expect((await invoke<Echo>(echo, {}, { name: 'hello' })).json).toMatchObject({
      functionName: 'hello',
      url: '/hello',
    });
  });

  it('sends cookies after any Cookie header', async () => {
    const res = await invoke<Echo>(echo, { headers: { cookie: 'a=1' }, cookies: { b: '2 3', c: 'x' } });
    expect(res.json?.cookies).toEqual({ a: '1', b: '2 3', c: 'x' });
  });

  it('sets the trigger per call (online by default)', async () => {
    expect((await invoke<Echo>(echo)).json?.trigger).toBe('online');
    expect((await invoke<Echo>(echo, { trigger: 'console_debug' })).json?.trigger).toBe('console_debug');
    const logs = (await invoke(echo, { trigger: 'ide_debug' })).logs;
    expect(logs.at(-1)?.trigger).toBe('ide_debug');
  });

  it('fills routeParams from a custom route', async () => {
    const res = await invoke<Echo>(echo, { path: '/videos/v42' }, { name: 'videos/get', route: '/videos/:vid' });
    expect(res.json?.routeParams).toEqual({ vid: 'v42' });
    expect(res.json?.functionName).toBe('videos/get');
  });

  it('answers like the server for a path no function serves and a method it refuses', async () => {
    const missing = await invoke(echo, { path: '/other' }, { name: 'hello' });
    expect(missing.status).toBe(404);
    expect((missing.json as { error: { code: string } }).error.code).toBe('CLOUDFN_NOT_FOUND');
    const put = await invoke(echo, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
  });
});

describe('invoke: the result', () => {
  it('is a plain object with status, Headers, cookies, body, text, json, logs, logid and durationMs', async () => {
    const res = await invoke(
      (_params, service) => {
        service.status(201).set('x-one', '1').setCookie('sid', 's1', { httpOnly: true, maxAge: 60, path: '/' });
        service.log({ step: 'done', logid: 'overwritten' });
        return { ok: true };
      },
      { path: '/make' },
    );
    expect(res.status).toBe(201);
    expect(res.headers).toBeInstanceOf(Headers);
    expect(res.headers.get('x-one')).toBe('1');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.cookies.sid).toEqual({ name: 'sid', value: 's1', httpOnly: true, maxAge: 60, path: '/' });
    expect(Buffer.isBuffer(res.body)).toBe(true);
    expect(res.text).toBe('{"ok":true}');
    expect(res.json).toEqual({ ok: true });
    expect(res.logid).toMatch(/^[0-9a-f]{24}$/);
    expect(res.headers.get('x-platform-logid')).toBe(res.logid);
    expect(res.logs[0]).toMatchObject({ level: 'log', step: 'done', logid: res.logid, function: 'make' });
    expect(res.logs.at(-1)).toMatchObject({
      method: 'GET',
      path: '/make',
      status: 201,
      logid: res.logid,
      function: 'make',
      msg: expect.stringMatching(/^GET \/make 201 [\d.]+ ms 11 B$/),
    });
    expect(res.durationMs).toBe(res.logs.at(-1)?.durationMs);
    expect(Object.getPrototypeOf(res)).toBe(Object.prototype);
  });

  it('has json undefined for text and for binary', async () => {
    const text = await invoke(() => '{"looks":"like json"}');
    expect(text.text).toBe('{"looks":"like json"}');
    expect(text.json).toBeUndefined();
    const binary = await invoke(() => Buffer.from([1, 2]));
    expect(binary.json).toBeUndefined();
    expect([...binary.body]).toEqual([1, 2]);
  });

  it('keeps the logid the request sends', async () => {
    const res = await invoke(() => null, { headers: { 'x-platform-logid': 'trace-1' } });
    expect(res.logid).toBe('trace-1');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
  });

  it('waits for a streamed body and its request line', async () => {
    const res = await invoke(() => Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
    expect(res.text).toBe('abcd');
    expect(res.logs.at(-1)).toMatchObject({ status: 200, bytes: 4 });
  });
});

describe('invoke: the runtime limits, errors and timeouts apply', () => {
  it('answers 413 over maxBodySize, from runtime options or the function config', async () => {
    const small = await invoke(echo, { body: 'x'.repeat(20) }, { runtime: { limits: { maxBodySize: 10 } } });
    expect(small.status).toBe(413);
    expect(small.json).toMatchObject({ error: { code: 'CLOUDFN_BODY_TOO_LARGE' } });
    const perFunction = await invoke(echo, { body: 'x'.repeat(20) }, { config: { maxBodySize: 10 } });
    expect(perFunction.status).toBe(413);
  });

  it('answers 431 for headers over maxHeaderSize, as node:http would', async () => {
    const res = await invoke(echo, { headers: { 'x-big': 'y'.repeat(4000) } }, { runtime: { maxHeaderSize: 2048 } });
    expect(res.status).toBe(431);
    expect(res.json).toMatchObject({ error: { code: 'CLOUDFN_HEADERS_TOO_LARGE' } });
  });

  it('answers 400 for bad JSON with the located error', async () => {
    const res = await invoke(echo, { body: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'CLOUDFN_BAD_JSON' } });
  });

  it('hides a crash from the client and logs its stack, unless exposeErrors is on', async () => {
    const crash = () => {
      throw new Error('database is down');
    };
    const hidden = await invoke(crash);
    expect(hidden.status).toBe(500);
    expect(hidden.text).not.toContain('database is down');
    expect(hidden.logs.find((r) => r.level === 'error' && String(r.msg).includes('database is down'))?.stack).toMatch(
      /database is down/,
    );
    const shown = await invoke(crash, {}, { runtime: { exposeErrors: true } });
    expect(shown.text).toContain('database is down');
  });

  it('times out after config.timeout with 504 and aborts service.signal', async () => {
    let signal: AbortSignal | undefined;
    const slow = (_params: unknown, service: Service) =>
      new Promise((resolve) => {
        signal = service.signal;
        setTimeout(resolve, 2000);
      });
    const res = await invoke(slow, {}, { config: { timeout: 30 } });
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ error: { code: 'CLOUDFN_TIMEOUT' } });
    expect(signal?.aborted).toBe(true);
  });

  it('disconnects when the request signal aborts: the call rejects and service.signal aborts', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const waiting = (_params: unknown, service: Service) =>
      new Promise((resolve) => {
        seen = service.signal;
        setTimeout(() => controller.abort(), 10);
        service.signal.addEventListener('abort', () => resolve('late'));
      });
    await expect(invoke(waiting, { signal: controller.signal })).rejects.toThrow(/abort/i);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen?.aborted).toBe(true);
  });
});

describe('invoke by path', () => {
  const project = tempProject({
    'functions/hello.ts': `import type { Handler } from 'cloudfn';
const hello: Handler<{ name?: string }> = (params, service) => ({ hello: params.name ?? 'world', fn: service.functionName });
export default hello;`,
    'functions/videos/get.ts': `export const config = { timeout: 40 };
export default async (_params: unknown, service: { routeParams: Record<string, string> }) => {
  if (service.routeParams.vid === 'slow') await new Promise((r) => setTimeout(r, 500));
  return { vid: service.routeParams.vid };
};`,
    'functions/teapot.ts': `import { HttpError } from 'cloudfn';
import { generateNonce } from 'cloudfn/sign';
export default () => {
  if (generateNonce().length > 0) throw new HttpError(418, 'short and stout');
};`,
    'functions/plain.mjs': `export default (params) => ({ js: true, params });`,
    'functions/common.cjs': `module.exports = async () => 'from cjs';`,
    'functions/nodefault.ts': `export const handler = () => 1;`,
    'functions/broken.ts': `export default () => {\n  return 1 +;\n};`,
    'cloudfn.config.json': JSON.stringify({
      routes: { '/v/:vid': 'videos/get' },
      functions: { hello: { maxBodySize: 8 } },
    }),
  });
  afterAll(() => project.remove());

  it('compiles TypeScript and names the function from its file', async () => {
    const res = await invoke(join(project.root, 'functions/hello.ts'), { query: { name: 'Ada' } });
    expect(res.json).toEqual({ hello: 'Ada', fn: 'hello' });
  });

  it('resolves a relative path against cwd', async () => {
    const res = await invoke('functions/hello.ts', {}, { cwd: project.root });
    expect(res.json).toEqual({ hello: 'world', fn: 'hello' });
  });

  it("applies the project's cloudfn.config: routes, per-function options and the module's config", async () => {
    const routed = await invoke('functions/videos/get.ts', { path: '/v/42' }, { cwd: project.root });
    expect(routed.json).toEqual({ vid: '42' });
    const slow = await invoke('functions/videos/get.ts', { path: '/v/slow' }, { cwd: project.root });
    expect(slow.status).toBe(504);
    const big = await invoke('functions/hello.ts', { body: { name: 'a long name' } }, { cwd: project.root });
    expect(big.status).toBe(413);
  });

  it('resolves imports of cloudfn to the copy serving the function, so HttpError keeps its status', async () => {
    const res = await invoke('functions/teapot.ts', {}, { cwd: project.root });
    expect(res.status).toBe(418);
    expect(res.json).toMatchObject({ error: { code: 'CLOUDFN_HTTP_ERROR', message: 'short and stout' } });
  });

  it('loads ESM and CommonJS files as they are', async () => {
    expect((await invoke('functions/plain.mjs', { query: { a: '1' } }, { cwd: project.root })).json).toEqual({
      js: true,
      params: { a: '1' },
    });
    expect((await invoke('functions/common.cjs', {}, { cwd: project.root })).text).toBe('from cjs');
  });

  it('fails with the one-line message of start-up when the default export is missing', async () => {
    await expect(invoke('functions/nodefault.ts', {}, { cwd: project.root })).rejects.toThrow(
      'functions/nodefault.ts has no default export: export default async function (params, service) { ... } (or module.exports = async (params, service) => { ... })',
    );
  });

  it('fails with file:line:column and a code frame on a compile error', async () => {
    await expect(invoke('functions/broken.ts', {}, { cwd: project.root })).rejects.toThrow(
      /functions\/broken\.ts:2:\d+: .*\n\s+2 \|\s+return 1 \+;/,
    );
  });

  it('names a missing file and where it looked', async () => {
    await expect(invoke('functions/nope.ts', {}, { cwd: project.root })).rejects.toThrow(
      /functions\/nope\.ts: there is no such file \(looked in /,
    );
  });

  it('loads a changed file anew', async () => {
    project.write('functions/changing.ts', 'export default () => "one";');
    expect((await invoke('functions/changing.ts', {}, { cwd: project.root })).text).toBe('one');
    project.write('functions/changing.ts', 'export default () => "two";');
    const later = new Date(Date.now() + 5000);
    utimesSync(join(project.root, 'functions/changing.ts'), later, later);
    expect((await invoke('functions/changing.ts', {}, { cwd: project.root })).text).toBe('two');
  });
});
