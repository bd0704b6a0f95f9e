import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../runtime/errors.js';
import { Logger } from '../../runtime/log/logger.js';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { serve, type RunningServer } from '../../runtime/serve/start.js';
import type { Handler, UploadFile } from '../../runtime/types.js';
import { startDevServer, type DevServer } from '../../src/dev/index.js';
import {
  ContainerCallError,
  TRIGGER_HEADER,
  callContainer,
  createContainerClient,
  type ContainerFailure,
  type ContainerResponse,
} from '../../src/client/index.js';
import { tempProject } from '../testing/project.js';

const echo: Handler = (params, service) => {
  service.set('x-echo', 'yes').setCookie('seen', '1');
  const file = (params as { file?: UploadFile } | undefined)?.file;
  return {
    params: Buffer.isBuffer(params) ? { bytes: params.length } : file ? { file: file.name } : params,
    method: service.httpMethod,
    url: service.url,
    type: service.headers['content-type'] ?? null,
    custom: service.headers['x-custom'] ?? null,
    trigger: service.trigger,
  };
};
type Echo = {
  params: unknown;
  method: string;
  url: string;
  type: string | null;
  custom: string | null;
  trigger: string;
};

let server: RunningServer;
beforeAll(async () => {
  server = await serve(
    [
      { name: 'echo', handler: echo },
      { name: 'text', handler: () => 'plain words' },
      {
        name: 'two-cookies',
        handler: (_params, service) => {
          service.setCookie('a', '1').setCookie('b', '2');
          return 'ok';
        },
      },
      { name: 'bytes', handler: () => Buffer.from([1, 2, 3]) },
      { name: 'empty', handler: () => undefined },
      {
        name: 'missing',
        handler: () => {
          throw new HttpError(404, 'no such video');
        },
      },
      { name: 'slow', handler: () => new Promise((resolve) => setTimeout(() => resolve('late'), 500)) },
    ],
    // As the dev server does: a trusted trigger header, ide_debug otherwise.
    {
      flags: { port: '0', host: '127.0.0.1' },
      env: {},
      overrides: { trigger: 'ide_debug', triggerHeader: TRIGGER_HEADER },
      logger: new Logger(createMemorySink()),
      handleSignals: false,
      keepServing: false,
    },
  );
});
afterAll(() => server.close());

const client = () => createContainerClient({ baseUrl: server.url.replace('localhost', '127.0.0.1') });

describe('callContainer: the promise form', () => {
  it('sends GET with the query of path, and the response has statusCode, header, data, cookies', async () => {
    const res = await client().callContainer<Echo>({ path: '/echo?name=Ada' });
    expect(res.statusCode).toBe(200);
    expect(res.header['x-echo']).toBe('yes');
    expect(res.header['content-type']).toBe('application/json; charset=utf-8');
    expect(res.cookies).toEqual(['seen=1']);
    expect(res.data).toEqual({
      params: { name: 'Ada' },
      method: 'GET',
      url: '/echo?name=Ada',
      type: null,
      custom: null,
      trigger: 'online',
    });
  });

  it('puts an object body of a GET into the query, as mini-program requests do', async () => {
    const res = await client().callContainer<Echo>({
      path: '/echo?a=1',
      init: { method: 'GET', body: { b: 2, c: ['x', 'y'] } },
    });
    expect(res.data.url).toBe('/echo?a=1&b=2&c=x&c=y');
  });

  it('sends an object as JSON, a string as text, bytes as binary, and a form when the header says so', async () => {
    const c = client();
    const json = await c.callContainer<Echo>({ path: '/echo', init: { method: 'POST', body: { name: 'Ada' } } });
    expect(json.data).toMatchObject({ params: { name: 'Ada' }, method: 'POST', type: 'application/json' });
    const text = await c.callContainer<Echo>({ path: '/echo', init: { method: 'POST', body: 'hello' } });
    expect(text.data).toMatchObject({ params: 'hello', type: 'text/plain;charset=utf-8' });
    const bytes = await c.callContainer<Echo>({
      path: '/echo',
      init: { method: 'POST', body: new Uint8Array([1, 2, 3, 4]).buffer },
    });
    expect(bytes.data).toMatchObject({ params: { bytes: 4 }, type: 'application/octet-stream' });
    const form = await c.callContainer<Echo>({
      path: '/echo',
      init: {
        method: 'POST',
        header: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: { a: 1, b: 'x y' },
      },
    });
    expect(form.data.params).toEqual({ a: '1', b: 'x y' });
    const custom = await c.callContainer<Echo>({
      path: '/echo',
      init: { method: 'POST', header: { 'X-Custom': 'v' }, body: {} },
    });
    expect(custom.data.custom).toBe('v');
  });

  it('sends FormData, URLSearchParams and a Blob as fetch sends them', async () => {
    const c = client();
    const form = new FormData();
    form.append('name', 'Ada');
    const multipart = await c.callContainer<Echo>({ path: '/echo', init: { method: 'POST', body: form } });
    expect(multipart.data.params).toEqual({ name: 'Ada' });
    expect(multipart.data.type).toMatch(/^multipart\/form-data; boundary=/);
    const withFile = new FormData();
    withFile.append('file', new Blob([new Uint8Array([0, 255])], { type: 'image/png' }), 'a.png');
    const upload = await c.callContainer<Echo>({ path: '/echo', init: { method: 'POST', body: withFile } });
    expect(upload.data.params).toEqual({ file: 'a.png' });
    const search = await c.callContainer<Echo>({
      path: '/echo',
      init: { method: 'POST', body: new URLSearchParams({ a: '1', b: 'x y' }) },
    });
    expect(search.data).toMatchObject({
      params: { a: '1', b: 'x y' },
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
    });
    const blob = await c.callContainer<Echo>({
      path: '/echo',
      init: { method: 'POST', body: new Blob(['{"n":1}'], { type: 'application/json' }) },
    });
    expect(blob.data).toMatchObject({ params: { n: 1 }, type: 'application/json' });
    const query = await c.callContainer<Echo>({ path: '/echo', init: { body: new URLSearchParams({ q: 'v w' }) } });
    expect(query.data.url).toBe('/echo?q=v+w');
    await expect(c.callContainer({ path: '/echo', init: { body: form } })).rejects.toThrow(
      /a GET call carries no body/,
    );
  });

  it('keeps every Set-Cookie, in cookies and in the header', async () => {
    const res = await client().callContainer({ path: '/two-cookies' });
    expect(res.cookies).toEqual(['a=1', 'b=2']);
    expect(res.header['set-cookie']).toBe('a=1, b=2');
  });

  it('gives text as a string, other bytes as an ArrayBuffer, and an empty body as ""', async () => {
    const c = client();
    expect((await c.callContainer({ path: '/text' })).data).toBe('plain words');
    const bytes = (await c.callContainer<ArrayBuffer>({ path: '/bytes' })).data;
    expect(bytes).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(bytes)]).toEqual([1, 2, 3]);
    expect((await c.callContainer({ path: '/empty' })).data).toBe('');
  });

  it('resolves with an error status: a 404 is an answer, not a failure', async () => {
    const res = await client().callContainer<{ error: { code: string; message: string } }>({ path: '/missing' });
    expect(res.statusCode).toBe(404);
    expect(res.data.error).toMatchObject({ code: 'CLOUDFN_HTTP_ERROR', message: 'no such video' });
  });

  it('rejects on timeout with errMsg and code', async () => {
    const error = await client()
      .callContainer({ path: '/slow', init: { timeout: 50 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContainerCallError);
    expect((error as ContainerCallError).code).toBe('CLIENT_TIMEOUT');
    expect((error as ContainerCallError).errMsg).toMatch(
      /^callContainer:fail timeout: no answer from http:\/\/127\.0\.0\.1:\d+\/slow within 50 ms; raise init.timeout/,
    );
  });

  it('rejects on a network error naming the URL', async () => {
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = (await createContainerClient({ baseUrl: `http://127.0.0.1:${port}` })
      .callContainer({ path: '/x' })
      .catch((e: unknown) => e)) as ContainerCallError;
    expect(error.code).toBe('CLIENT_NETWORK');
    expect(error.errMsg).toBe(
      `callContainer:fail network error calling http://127.0.0.1:${port}/x: ECONNREFUSED; is the server running at that base URL?`,
    );
  });

  it('refuses bad options with a parameter error', async () => {
    const c = client();
    await expect(c.callContainer({ path: 'echo' })).rejects.toThrow(
      'callContainer:fail parameter error: path must be a string starting with "/", got "echo"',
    );
    await expect(c.callContainer({ path: '/echo', init: { timeout: -1 } })).rejects.toThrow(
      /init\.timeout must be a positive whole number of milliseconds, got -1/,
    );
    await expect(c.callContainer({ path: '/echo', init: { body: 'text on a GET' } })).rejects.toThrow(
      /a GET call carries no body/,
    );
    expect(() => createContainerClient({ baseUrl: 'localhost:8000' })).toThrow(
      'baseUrl must be an absolute http(s) URL such as http://127.0.0.1:8000, got "localhost:8000"',
    );
    expect(() => createContainerClient({ baseUrl: 'ftp://x' })).toThrow(/got "ftp:\/\/x"/);
  });

  it('keeps a path prefix of the base URL, and can send no trigger header', async () => {
    const base = server.url.replace('localhost', '127.0.0.1');
    const calls: string[] = [];
    const spy: typeof fetch = (input, init) => {
      calls.push(String(input));
      return fetch(String(input).replace('/prefix', ''), init);
    };
    const res = await createContainerClient({
      baseUrl: `${base}/prefix/`,
      fetch: spy,
      trigger: false,
    }).callContainer<Echo>({ path: '/echo' });
    expect(calls).toEqual([`${base}/prefix/echo`]);
    expect(res.data.trigger).toBe('ide_debug');
  });
});

describe('callContainer: the callback form', () => {
  it('calls success then complete with the response, and returns nothing', async () => {
    const order: string[] = [];
    const done = new Promise<ContainerResponse>((resolve) => {
      const returned = client().callContainer({
        path: '/echo',
        init: { method: 'POST', body: { a: 1 } },
        success: (res) => void order.push(`success ${res.statusCode}`),
        fail: () => void order.push('fail'),
        complete: (res) => {
          order.push('complete');
          resolve(res as ContainerResponse);
        },
      });
      expect(returned).toBeUndefined();
    });
    expect((await done).statusCode).toBe(200);
    expect(order).toEqual(['success 200', 'complete']);
  });

  it('calls fail then complete with { errMsg, code }', async () => {
    const order: string[] = [];
    const failure = await new Promise<ContainerFailure>((resolve) => {
      client().callContainer({
        path: '/slow',
        init: { timeout: 30 },
        success: () => void order.push('success'),
        fail: (err) => void order.push(`fail ${err.code}`),
        complete: (err) => {
          order.push('complete');
          resolve(err as ContainerFailure);
        },
      });
    });
    expect(order).toEqual(['fail CLIENT_TIMEOUT', 'complete']);
    expect(failure).toEqual({ errMsg: expect.stringMatching(/^callContainer:fail timeout/), code: 'CLIENT_TIMEOUT' });
  });
  it('runs complete when success throws, and lets the error surface', async () => {
    // The error is thrown again after complete: an unhandled rejection, caught here instead of by
    // the test runner.
    const listeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    try {
      const surfaced = new Promise<unknown>((resolve) => process.once('unhandledRejection', resolve));
      const order: string[] = [];
      client().callContainer({
        path: '/echo',
        success: () => {
          order.push('success');
          throw new Error('a bug in success');
        },
        fail: () => void order.push('fail'),
        complete: () => void order.push('complete'),
      });
      expect(((await surfaced) as Error).message).toBe('a bug in success');
      expect(order).toEqual(['success', 'complete']);
    } finally {
      for (const listener of listeners) process.on('unhandledRejection', listener);
    }
  });
});

describe('callContainer without a base URL', () => {
  it('calls fail and complete, or rejects, instead of throwing', async () => {
    const before = process.env.CLOUDFN_BASE_URL;
    delete process.env.CLOUDFN_BASE_URL;
    try {
      const order: string[] = [];
      const failure = await new Promise<ContainerFailure>((resolve) => {
        const returned = callContainer({
          path: '/hello',
          fail: (err) => void order.push(`fail ${err.code}`),
          complete: (err) => resolve(err as ContainerFailure),
        });
        expect(returned).toBeUndefined();
      });
      expect(order).toEqual(['fail CLIENT_BAD_OPTIONS']);
      expect(failure.errMsg).toMatch(
        /^callContainer:fail parameter error: callContainer needs a base URL: set CLOUDFN_BASE_URL/,
      );
      await expect(callContainer({ path: '/hello' })).rejects.toThrow(/set CLOUDFN_BASE_URL/);
      process.env.CLOUDFN_BASE_URL = 'localhost:8000';
      await expect(callContainer({ path: '/hello' })).rejects.toThrow(/baseUrl must be an absolute http\(s\) URL/);
    } finally {
      if (before === undefined) delete process.env.CLOUDFN_BASE_URL;
      else process.env.CLOUDFN_BASE_URL = before;
    }
  });
});

describe('callContainer against cloudfn dev', () => {
  const project = tempProject({
    'functions/hello.ts': `export default (params: { name?: string }, service: { trigger: string }) => ({ hello: params.name ?? 'world', trigger: service.trigger });`,
  });
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer({ root: project.root, port: 0, sink: createMemorySink() });
  }, 30_000);
  afterAll(async () => {
    await dev.close();
    project.remove();
  });

  it('asks for trigger online through the header the dev server trusts', async () => {
    const res = await createContainerClient({ baseUrl: dev.url }).callContainer({
      path: '/hello',
      init: { method: 'POST', body: { name: 'Ada' } },
    });
    expect(res.data).toEqual({ hello: 'Ada', trigger: 'online' });
    const direct = await fetch(`${dev.url}/hello`);
    expect(await direct.json()).toEqual({ hello: 'world', trigger: 'ide_debug' });
  });

  it('works as a bare callContainer with CLOUDFN_BASE_URL', async () => {
    const before = process.env.CLOUDFN_BASE_URL;
    process.env.CLOUDFN_BASE_URL = dev.url;
    try {
      const res = await callContainer<{ hello: string }>({ path: '/hello?name=Lin' });
      expect(res.data.hello).toBe('Lin');
    } finally {
      if (before === undefined) delete process.env.CLOUDFN_BASE_URL;
      else process.env.CLOUDFN_BASE_URL = before;
    }
  });
});
