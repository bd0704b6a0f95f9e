/**
 * Protocol-level rows over raw node:net sockets: what a well-behaved HTTP client cannot send
 * (huge headers, slow or oversize bodies, disconnects), shutdown, and stray errors.
 */
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../runtime/serve/start.js';
import { keepServingOnStrayErrors } from '../../../runtime/serve/stray-errors.js';
import { shutdown } from '../../../runtime/serve/drain.js';
import type { FunctionSpec } from '../../../runtime/types.js';
import type { RuntimeOptions } from '../../../runtime/options.js';
import type { Service } from '../../../runtime/types.js';
import { testServers } from '../helpers/test-servers.js';
import { sendHttp } from '../helpers/transport.js';
import { until } from '../../testing/until.js';

const servers = testServers();
const start = (functions: FunctionSpec[], overrides: Partial<RuntimeOptions> = {}): Promise<RunningServer> =>
  servers.start(functions, { overrides });

/** Opens a raw socket, writes `data`, and resolves with everything read until the server closes it. */
function raw(server: RunningServer, write: (socket: Socket) => void, waitMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    socket.on('connect', () => write(socket));
  });
}

/** Resolves once `check` holds, polling every 10 ms (no fixed sleep). */

const echo: FunctionSpec = {
  name: 'echo',
  handler: (params: unknown) => ({ got: Buffer.isBuffer(params) ? params.length : params }),
};

describe('protocol limits', () => {
  it('answers 431 with a logid when the headers are too large', async () => {
    const server = await start([echo], { maxHeaderSize: 2048 });
    const text = await raw(server, (s) =>
      s.write(`GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`),
    );
    expect(text).toMatch(/^HTTP\/1\.1 431 /);
    expect(text).toMatch(/x-platform-logid: [0-9a-f]{24}/);
    expect(text).toContain('CLOUDFN_HEADERS_TOO_LARGE');
    expect((await sendHttp(server.url, { path: '/echo?still=up' })).status).toBe(200);
  });

  it('answers 400 to a request line that is not HTTP', async () => {
    const server = await start([echo]);
    const text = await raw(server, (s) => s.write('HELLO THERE\r\n\r\n'));
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('CLOUDFN_BAD_REQUEST');
  });

  it('answers 408 to a client that never finishes its headers', async () => {
    const server = await start([echo], { headersTimeout: 300, requestTimeout: 300 });
    const text = await raw(server, (s) => s.write('GET /echo HTTP/1.1\r\nHost: x\r\n'), 5000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('CLOUDFN_REQUEST_TIMEOUT');
  });

  it('answers 413 before reading when Content-Length is over the limit, and closes', async () => {
    const server = await start([{ ...echo, config: { maxBodySize: 100 } }]);
    const text = await raw(server, (s) =>
      s.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n'),
    );
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/connection: close/i);
    expect(text).toContain("larger than 100 bytes, the limit set by the function's config.maxBodySize");
  });

  it('answers 413 as soon as a chunked body passes the limit', async () => {
    const server = await start([{ ...echo, config: { maxBodySize: 100 } }]);
    const text = await raw(server, (s) => {
      s.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n');
      s.write(`80\r\n${'x'.repeat(128)}\r\n`);
      // The body never ends: the answer must not wait for it.
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toContain('CLOUDFN_BODY_TOO_LARGE');
  });

  it('keeps the connection for the next request after a 400', async () => {
    const server = await start([echo]);
    const body = '{"a":';
    const text = await raw(
      server,
      (s) => {
        s.write(
          `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        s.write('GET /echo?b=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      },
      3000,
    );
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 400', 'HTTP/1.1 200']);
    expect(text).toContain('{"got":{"b":"2"}}');
  });
});

describe('faults', () => {
  it('aborts service.signal and logs when the client disconnects', async () => {
    let aborted: (reason: unknown) => void = () => {};
    const seen = new Promise((resolve) => (aborted = resolve));
    let running: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => (running = resolve));
    const server = await start([
      {
        name: 'wait',
        handler: (_p: unknown, service: Service) =>
          new Promise(() => {
            service.signal.addEventListener('abort', () => aborted(service.signal.reason));
            running();
          }),
      },
    ]);
    const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /wait HTTP/1.1\r\nHost: x\r\n\r\n'));
    // Disconnect once the handler runs, not after a guessed delay.
    await inHandler;
    socket.destroy();
    expect(String(await seen)).toContain('disconnected');
    await until(
      () =>
        servers.sink.records.some((r) => r.function === 'wait' && String(r.msg).includes('client disconnected'))
          ? true
          : undefined,
      20_000,
      'the disconnect line',
    );
    expect(servers.sink.records.some((r) => r.function === 'wait' && r['status'] === 499)).toBe(true);
  });

  it('destroys the socket when a returned stream fails after the headers were sent', async () => {
    const server = await start([
      {
        name: 'broken',
        handler: () => {
          let sent = false;
          return new Readable({
            read() {
              if (sent) return;
              sent = true;
              this.push('partial');
              setTimeout(() => this.destroy(new Error('disk gone')), 50);
            },
          });
        },
      },
    ]);
    const text = await raw(server, (s) => s.write('GET /broken HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain('partial');
    // A chunked response that never got its terminating chunk: the client sees a cut, not a whole 200.
    expect(text.endsWith('0\r\n\r\n')).toBe(false);
    expect(servers.sink.records.some((r) => String(r.msg).includes('disk gone'))).toBe(true);
  });

  it('ignores what a handler returns after its timeout', async () => {
    let returned: () => void = () => {};
    const late = new Promise<void>((resolve) => (returned = resolve));
    const server = await start([
      {
        name: 'late',
        handler: () =>
          new Promise((r) =>
            setTimeout(() => {
              r({ late: true });
              returned();
            }, 150),
          ),
        config: { timeout: 50 },
      },
    ]);
    const answer = await sendHttp(server.url, { path: '/late' });
    expect(answer.status).toBe(504);
    // Once the late value was returned (not after a guessed delay), the server still serves.
    await late;
    expect((await sendHttp(server.url, { path: '/late' })).status).toBe(504);
  });

  it('logs stray rejections and exceptions from user code and keeps serving', async () => {
    const server = await start([
      {
        name: 'stray',
        handler: () => {
          void Promise.reject(new Error('nobody awaited me'));
          return { ok: true };
        },
      },
    ]);
    const remove = keepServingOnStrayErrors(server.app);
    try {
      expect((await sendHttp(server.url, { path: '/stray' })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect(
        servers.sink.records.some((r) =>
          String(r.msg).includes('unhandled rejection (kept serving): nobody awaited me'),
        ),
      ).toBe(true);
      expect((await sendHttp(server.url, { path: '/stray' })).status).toBe(200);
    } finally {
      remove();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests with Connection: close and closes idle keep-alive sockets at once', async () => {
    let release: () => void = () => {};
    const server = await start([
      { name: 'hold', handler: () => new Promise((r) => (release = () => r({ finished: true }))) },
      echo,
    ]);
    // A keep-alive socket that has been served once and now waits for its next request.
    const idle = connect(server.port, '127.0.0.1', () => idle.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n'));
    const idleClosed = new Promise((r) => idle.on('close', r));
    await new Promise((r) => idle.once('data', r));
    const inflight = sendHttp(server.url, { path: '/hold' });
    await new Promise((r) => setTimeout(r, 50));
    const done = shutdown(server.app, server.server, 5000);
    await idleClosed;
    release();
    const answer = await inflight;
    expect(JSON.parse(answer.body.toString())).toEqual({ finished: true });
    expect(answer.headers['connection']).toBe('close');
    expect(await done).toBe(true);
    servers.forget();
  });

  it('answers a new request on an open socket 503 with Connection: close while closing', async () => {
    const server = await start([echo]);
    const text = await raw(server, (s) => {
      s.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
      setTimeout(() => {
        server.app.beginShutdown();
        s.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
      }, 100);
    });
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 503']);
    expect(text).toMatch(/HTTP\/1\.1 503[\s\S]*connection: close/i);
    expect(text).toContain('CLOUDFN_SHUTTING_DOWN');
    // Every deploy answers these: a warning, not an error that pages someone.
    const refused = servers.sink.records.filter((r) => r['status'] === 503);
    expect(refused.map((r) => r['level'])).toEqual(['warn']);
  });

  it('serves through the lame-duck period with the health paths at 503, then closes the port and drains', async () => {
    let release: () => void = () => {};
    const server = await start([
      { name: 'hold', handler: () => new Promise((r) => (release = () => r({ finished: true }))) },
      echo,
    ]);
    // Long enough for the requests below to be answered before it ends on a loaded machine;
    // the test checks that they were (app.refusing still false), so it cannot pass by timing.
    const done = shutdown(server.app, server.server, { drainDelay: 1500, deadline: 5000 });
    const [health, ping, served] = await Promise.all([
      sendHttp(server.url, { path: '/_cloudfn/health' }),
      sendHttp(server.url, { path: '/v1/ping' }),
      sendHttp(server.url, { path: '/echo?during=lame-duck' }),
    ]);
    const inflight = sendHttp(server.url, { path: '/hold' });
    await until(() => (server.app.inflight === 1 ? true : undefined), 20_000, 'the request in flight');
    expect(server.app.refusing).toBe(false);
    expect([health.status, ping.status]).toEqual([503, 503]);
    expect(JSON.parse(health.body.toString()).status).toBe('closing');
    expect(served.status).toBe(200);
    // Announced, so a balancer never sends a request on a socket the server is about to close.
    expect(served.headers['connection']).toBe('close');
    await until(() => (server.app.refusing ? true : undefined), 20_000, 'the server refusing');
    await expect(sendHttp(server.url, { path: '/echo' })).rejects.toThrow(/ECONNREFUSED/);
    release();
    const held = await inflight;
    expect(held.status).toBe(200);
    expect(held.headers['connection']).toBe('close');
    expect(await done).toBe(true);
    expect(servers.sink.records.some((r) => String(r['msg']).startsWith('lame duck for 1500 ms'))).toBe(true);
    servers.forget();
  });

  it('refuses new connections while in-flight requests drain', async () => {
    let release: () => void = () => {};
    const server = await start([
      { name: 'hold', handler: () => new Promise((r) => (release = () => r({ finished: true }))) },
      echo,
    ]);
    const inflight = sendHttp(server.url, { path: '/hold' });
    await new Promise((r) => setTimeout(r, 50));
    const done = shutdown(server.app, server.server, 5000);
    // A balancer resends a refused connection elsewhere, POSTs included: nothing was sent.
    await expect(sendHttp(server.url, { path: '/echo', method: 'POST', body: '{}' })).rejects.toThrow(/ECONNREFUSED/);
    release();
    expect((await inflight).status).toBe(200);
    expect(await done).toBe(true);
    servers.forget();
  });

  it('cuts requests off at the deadline and says so', async () => {
    const server = await start([{ name: 'forever', handler: () => new Promise(() => {}) }]);
    const pending = sendHttp(server.url, { path: '/forever' }).catch((error: Error) => error);
    await new Promise((r) => setTimeout(r, 50));
    expect(await shutdown(server.app, server.server, 100)).toBe(false);
    expect(await pending).toBeInstanceOf(Error);
    expect(
      servers.sink.records.some((r) =>
        String(r.msg).includes('shutdown deadline of 100 ms passed with 1 requests in flight'),
      ),
    ).toBe(true);
    servers.forget();
  });
});
