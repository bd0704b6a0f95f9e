/**
 * The three memory bounds, each with a small limit set in the test: the memory budget (bodies
 * held and answers unsent, across requests; 503 with Retry-After before reading), the send
 * timeout (an answer nobody reads), and the connection limit; their options and metrics.
 */
import { connect, type Socket } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../../runtime/options.js';
import type { RunningServer } from '../../../runtime/serve/start.js';
import type { FunctionSpec } from '../../../runtime/types.js';
import { testServers } from '../helpers/test-servers.js';

const servers = testServers();

/** Larger than what loopback's kernel buffers take, so part of it stays in node's. */
const BIG = Buffer.alloc(48 * 1024 * 1024, 1);

/** Polls `check` until it is true, for at most `ms` (a bound, not a timing assertion). */
async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 10) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

/** A raw connection: what it read, and whether the server closed it. */
interface Raw {
  socket: Socket;
  text: () => string;
  closed: Promise<void>;
}

function open(server: RunningServer, { read }: { read: boolean }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (read) socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    else socket.pause();
    socket.on('connect', () => resolve({ socket, text: () => text, closed }));
  });
}

/** Sends one request on a new connection and resolves with the whole answer once it closes. */
async function ask(server: RunningServer, request: string): Promise<string> {
  const raw = await open(server, { read: true });
  raw.socket.write(request);
  await raw.closed;
  return raw.text();
}

function post(path: string, bytes: number): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes}\r\nConnection: close\r\n\r\n${'b'.repeat(bytes)}`;
}

describe('the memory budget', () => {
  it('refuses a body that would pass it with 503 and Retry-After, before reading or running, when it may not wait', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let ran = 0;
    const functions: FunctionSpec[] = [
      { name: 'hold', handler: () => held.then(() => 'held') },
      {
        name: 'store',
        handler: (params) => {
          ran++;
          return { got: (params as Buffer).length };
        },
      },
    ];
    // memoryWaitTimeout 0: refused at once, as before bodies could wait (overload.test.ts).
    const server = await servers.start(functions, { overrides: { memoryBudget: 1000, memoryWaitTimeout: 0 } });
    const first = await open(server, { read: true });
    first.socket.write(post('/hold', 800));
    expect(await until(() => server.app.memory.held === 800)).toBe(true);

    const refused = await ask(server, post('/store', 300));
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(refused).toContain('CLOUDFN_OVERLOADED');
    expect(refused).toContain('memoryBudget of 1000');
    expect(ran).toBe(0);
    // A request without a body still fits under the budget.
    expect(await ask(server, 'GET /store HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 /,
    );

    release();
    await first.closed;
    expect(await until(() => server.app.memory.held === 0)).toBe(true);
    expect(await ask(server, post('/store', 300))).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"got":300\}/);
    expect(ran).toBe(2);
    expect(server.app.memory.refused).toBe(1);
  });

  it('lets one body larger than the whole budget run when nothing else is held', async () => {
    const server = await servers.start([{ name: 'store', handler: (p) => ({ got: (p as Buffer).length }) }], {
      overrides: { memoryBudget: 100 },
    });
    expect(await ask(server, post('/store', 500))).toContain('{"got":500}');
  });

  it('counts answers nobody reads, and refuses new requests while they hold it', async () => {
    const server = await servers.start(
      [
        { name: 'big', handler: () => BIG },
        { name: 'small', handler: () => 'ok' },
      ],
      { overrides: { memoryBudget: 1024 * 1024, sendTimeout: 0 } },
    );
    const reader = await open(server, { read: false });
    reader.socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await until(() => server.app.memory.held > 1024 * 1024)).toBe(true);
    const refused = await ask(server, 'GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 503 [\s\S]*CLOUDFN_OVERLOADED/);
    reader.socket.destroy();
    expect(await until(() => server.app.memory.held === 0)).toBe(true);
    expect(await ask(server, 'GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 /,
    );
  });
});

describe('the send timeout', () => {
  it('closes a connection whose client reads nothing of its answer, with a warning line', async () => {
    const server = await servers.start([{ name: 'big', handler: () => BIG }], { overrides: { sendTimeout: 100 } });
    const stuck = await open(server, { read: false });
    stuck.socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    // Generous: the timeout is 100 ms, the bound 5 s. A paused client sees no close, so the
    // server's count says it; then the client reads and finds the answer cut.
    expect(await until(() => server.app.connections.sendTimeouts === 1)).toBe(true);
    expect(await until(() => server.app.memory.held === 0)).toBe(true);
    let received = 0;
    stuck.socket.on('data', (chunk: Buffer) => (received += chunk.length));
    stuck.socket.resume();
    await stuck.closed;
    expect(received).toBeLessThan(BIG.length);
    expect(servers.sink.records.some((r) => r.level === 'warn' && String(r.msg).includes('sendTimeout'))).toBe(true);
  });

  it('leaves a client that reads its answer, slowly, alone: each read renews the time', async () => {
    // The client pauses 200 ms after each 4 MiB: it takes longer than sendTimeout in all, but
    // never goes that long without reading (a margin of 1.3 s for a loaded machine).
    const server = await servers.start([{ name: 'big', handler: () => BIG }], { overrides: { sendTimeout: 1500 } });
    const reader = await open(server, { read: false });
    let received = 0;
    let sincePause = 0;
    const started = performance.now();
    reader.socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      sincePause += chunk.length;
      if (received > BIG.length) reader.socket.end();
      else if (sincePause >= 4 * 1024 * 1024) {
        sincePause = 0;
        reader.socket.pause();
        setTimeout(() => reader.socket.resume(), 200);
      }
    });
    reader.socket.write('GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    reader.socket.resume();
    await reader.closed;
    expect(received).toBeGreaterThan(BIG.length);
    expect(performance.now() - started).toBeGreaterThan(1500);
    expect(server.app.connections.sendTimeouts).toBe(0);
  });
});

describe('the connection limit', () => {
  it('answers a request on a connection past it with 503 and Retry-After', async () => {
    const server = await servers.start([{ name: 'hello', handler: () => 'hi' }], { overrides: { maxConnections: 2 } });
    const one = await open(server, { read: true });
    const two = await open(server, { read: true });
    expect(await until(() => server.app.connections.open === 2)).toBe(true);
    const refused = await ask(server, 'GET /hello HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(refused).toContain('CLOUDFN_TOO_MANY_CONNECTIONS');
    // The connections within the limit are served.
    one.socket.write('GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await one.closed;
    expect(one.text()).toMatch(/^HTTP\/1\.1 200 /);
    expect(await until(() => server.app.connections.open === 1)).toBe(true);
    expect(await ask(server, 'GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 /,
    );
    two.socket.destroy();
    expect(server.app.connections.refused).toBe(1);
  });
});

describe('their options and metrics', () => {
  it('reads each from its environment variable and refuses a bad value', () => {
    const options = resolveOptions({
      env: { CLOUDFN_MEMORY_BUDGET: '2048', CLOUDFN_SEND_TIMEOUT: '0', CLOUDFN_MAX_CONNECTIONS: '7' },
    });
    expect(options).toMatchObject({ memoryBudget: 2048, sendTimeout: 0, maxConnections: 7 });
    expect(resolveOptions({ config: { maxConnections: 9 } }).maxConnections).toBe(9);
    expect(resolveOptions({ flags: { memoryBudget: '64' }, env: { CLOUDFN_MEMORY_BUDGET: '128' } }).memoryBudget).toBe(
      64,
    );
    expect(() => resolveOptions({ env: { CLOUDFN_SEND_TIMEOUT: 'soon' } })).toThrow(
      /sendTimeout.*CLOUDFN_SEND_TIMEOUT/,
    );
    const defaults = resolveOptions();
    expect(defaults.memoryBudget).toBeGreaterThan(0);
    expect(defaults.sendTimeout).toBeGreaterThan(0);
    expect(defaults.maxConnections).toBeGreaterThan(0);
  });

  it('exposes the limits and their refusals in the metrics', async () => {
    const server = await servers.start([{ name: 'hello', handler: () => 'hi' }], {
      env: { CLOUDFN_METRICS: 'true' },
      overrides: { memoryBudget: 4096, maxConnections: 50 },
    });
    const text = await ask(server, 'GET /_cloudfn/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const families = parsePrometheusTextFormat(text.slice(text.indexOf('\r\n\r\n') + 4));
    const value = (name: string): string | undefined =>
      (families.find((f) => f.name === name)?.metrics[0] as { value?: string } | undefined)?.value;
    expect(value('cloudfn_memory_budget_bytes')).toBe('4096');
    expect(value('cloudfn_connections_max')).toBe('50');
    expect(Number(value('cloudfn_connections_open'))).toBeGreaterThanOrEqual(1);
    expect(value('cloudfn_memory_held_bytes')).toBeDefined();
    expect(value('cloudfn_memory_refusals_total')).toBe('0');
    expect(value('cloudfn_connection_refusals_total')).toBe('0');
    expect(value('cloudfn_send_timeouts_total')).toBe('0');
    // Shedding under load (overload.test.ts): nothing shed, no pressure.
    expect(value('cloudfn_overload_active')).toBe('0');
    expect(value('cloudfn_overload_episodes_total')).toBe('0');
    expect(value('cloudfn_memory_waiting')).toBe('0');
    for (const name of [
      'cloudfn_idle_connections_shed_total',
      'cloudfn_headless_connections_shed_total',
      'cloudfn_stalled_answers_cut_total',
      'cloudfn_memory_waits_total',
    ])
      expect(value(name), name).toBe('0');
  });
});
