/**
 * The answers loaded after start (issue 44): an error answer (request/error-answer.ts) and the
 * answer to a connection error (serve/client-error.ts) are chunks of a bundle, read after the
 * start code. A request that fails before its chunk has loaded waits for it and gets the same
 * bytes and the same log line as one that fails later. Each case takes fresh copies of the
 * runtime's modules, so nothing is loaded before it starts.
 */
import type { IncomingMessage as Incoming, ServerResponse as Response } from 'node:http';
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const http = process.getBuiltinModule('node:http');

/** A request on an in-memory socket whose written bytes are kept: no port, no timing. */
function memoryRequest(method: string, url: string): { req: Incoming; res: Response; wire: () => string } {
  const written: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk, _encoding, done) {
      written.push(Buffer.from(chunk));
      done();
    },
  });
  const req = new http.IncomingMessage(socket as never);
  req.method = method;
  req.url = url;
  req.headers = { host: 'test' };
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const res = new http.ServerResponse(req);
  res.assignSocket(socket as never);
  return { req, res, wire: () => Buffer.concat(written).toString() };
}

/** An app made from fresh modules, its log kept in memory. */
async function freshApp(options: { trustGatewayHeaders?: boolean } = {}) {
  const { createApp } = await import('../../../runtime/serve/create-app.js');
  const { Logger } = await import('../../../runtime/log/logger.js');
  const { createMemorySink } = await import('../../../runtime/log/sinks.js');
  const sink = createMemorySink();
  const app = createApp({
    functions: [
      { name: 'hello', handler: () => ({ hello: 'world' }) },
      {
        name: 'parts',
        handler: (_params: unknown, service: import('../../../runtime/types.js').Service) => {
          service.set('x-kind', 'parts').setCookie('seen', 'yes', { httpOnly: true });
          service.clearCookie('old');
          return { caller: service.caller?.openid ?? null, sampled: typeof service.trace.sampled };
        },
      },
      {
        name: 'crash',
        handler: () => {
          throw new Error('disk full', { cause: new Error('ENOSPC') });
        },
      },
    ],
    logger: new Logger(sink),
    options,
  });
  return { app, sink };
}

/** The request answered with the app just made (the error answer still loading) and once it has loaded. */
async function bothWays(method: string, url: string) {
  const { app, sink } = await freshApp();
  const first = memoryRequest(method, url);
  // Handled in the same turn as createApp: the error answer's import cannot have settled.
  app.handle(first.req, first.res);
  expect(first.res.writableEnded).toBe(false);
  await new Promise((resolve) => first.res.once('finish', resolve));
  const later = memoryRequest(method, url);
  app.handle(later.req, later.res);
  // Loaded now: answered within the call.
  expect(later.res.writableEnded).toBe(true);
  return { first: first.wire(), later: later.wire(), records: sink.records };
}

/** The wire text without the parts that change per request (date, logid). */
function steady(wire: string): string {
  return wire.replace(/^date: .*$/im, 'date: -').replace(/[0-9a-f]{20,}/gi, '<logid>');
}

beforeEach(() => {
  vi.resetModules();
});

describe('an error before its answer has loaded', () => {
  it('a 404 waits for the error answer and gets the same bytes as one after it', async () => {
    const { first, later } = await bothWays('GET', '/nope');
    expect(first).toMatch(/^HTTP\/1\.1 404 /);
    expect(first).toContain('"code":"CLOUDFN_NOT_FOUND"');
    expect(first).toContain('no function is served at /nope');
    expect(steady(first)).toBe(steady(later));
  });

  it('a 405 keeps its Allow header', async () => {
    const { first, later } = await bothWays('PUT', '/hello');
    expect(first).toMatch(/^HTTP\/1\.1 405 /);
    expect(first.toLowerCase()).toContain('allow: get, post');
    expect(steady(first)).toBe(steady(later));
  });

  it('a crash is a 500 without its message, logged with its cause, both times', async () => {
    const { first, later, records } = await bothWays('GET', '/crash');
    expect(first).toMatch(/^HTTP\/1\.1 500 /);
    expect(first).not.toContain('disk full');
    expect(steady(first)).toBe(steady(later));
    const failures = records.filter((r) => String(r['msg']).startsWith('the function failed'));
    expect(failures.map((r) => r['msg'])).toEqual([
      'the function failed: disk full (cause: ENOSPC)',
      'the function failed: disk full (cause: ENOSPC)',
    ]);
  });
});

describe('a target that needs decoding before decode-path.ts has loaded', () => {
  /** One request handled in the same turn as createApp, to its end. */
  async function first(method: string, url: string) {
    vi.resetModules();
    const { app } = await freshApp();
    const request = memoryRequest(method, url);
    app.handle(request.req, request.res);
    // decode-path.ts is imported on the first such target: the request waits for it.
    expect(request.res.writableEnded).toBe(false);
    await new Promise((resolve) => request.res.once('finish', resolve));
    return request.wire();
  }

  it('runs the function a percent-escaped path names', async () => {
    const wire = await first('GET', '/h%65llo');
    expect(wire).toMatch(/^HTTP\/1\.1 200 /);
    expect(wire).toContain('{"hello":"world"}');
  });

  it('routes an absolute-form target by its path', async () => {
    expect(await first('GET', 'http://test/hello?x=1')).toContain('{"hello":"world"}');
  });

  it('refuses an escaped slash and a dot segment with 400, and `*` with 405', async () => {
    expect(await first('GET', '/a%2Fb')).toMatch(/^HTTP\/1\.1 400 [\s\S]*escapes a '\/' as %2F/);
    expect(await first('GET', '/x/../hello')).toMatch(/^HTTP\/1\.1 400 [\s\S]*has a '\.' or '\.\.' segment/);
    expect(await first('OPTIONS', '*')).toMatch(/^HTTP\/1\.1 405 /);
  });
});

describe('a handler that runs before the service parts have loaded', () => {
  it('waits for them, then sets its header and cookies and reads its caller and trace', async () => {
    // Behind the gateway: its caller headers are kept and read.
    const { app } = await freshApp({ trustGatewayHeaders: true });
    const request = memoryRequest('GET', '/parts');
    request.req.headers['x-tt-openid'] = 'ann';
    app.handle(request.req, request.res);
    expect(request.res.writableEnded).toBe(false);
    await new Promise((resolve) => request.res.once('finish', resolve));
    const wire = request.wire();
    expect(wire).toMatch(/^HTTP\/1\.1 200 /);
    expect(wire).toContain('x-kind: parts');
    expect(wire).toContain('set-cookie: seen=yes; HttpOnly');
    expect(wire).toContain('set-cookie: old=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    expect(wire).toContain('{"caller":"ann","sampled":"boolean"}');
  });
});

describe('a connection error before its answer has loaded', () => {
  it('answers a 431 with the JSON error and a warning line', async () => {
    const { app, sink } = await freshApp();
    const { createHttpServer, listen } = await import('../../../runtime/serve/http-server.js');
    const server = createHttpServer(app);
    const { port } = await listen(server, 0, '127.0.0.1');
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.write(`GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large/);
      expect(answer).toContain('"code":"CLOUDFN_HEADERS_TOO_LARGE"');
      const warning = sink.records.find((r) => String(r['msg']).startsWith('431 before routing'));
      expect(warning?.['code']).toBe('CLOUDFN_HEADERS_TOO_LARGE');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
