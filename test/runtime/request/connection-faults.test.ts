/**
 * Faults of a connection that must not change what the server does or reports: a request
 * pipelined behind an answer that closes the connection never runs unanswered, and a client
 * that goes away mid-body is a 499 with its warning line, not a 400 of the parser's.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../runtime/log/record.js';
import type { RunningServer } from '../../../runtime/serve/start.js';
import { testServers } from '../helpers/test-servers.js';

const servers = testServers();

/**
 * Writes on a raw socket and resolves with what was read once the server closed it; `closed`
 * is false when it did not within the bound.
 */
function raw(server: RunningServer, write: (socket: Socket) => void): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    // A generous bound: a server that never closes fails the test, it does not hang it.
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 5000);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    socket.on('connect', () => write(socket));
  });
}

/** Resolves with the first record `match` accepts, polling the memory log (bounded). */
async function waitForRecord(match: (record: LogRecord) => boolean, ms = 5000): Promise<LogRecord | undefined> {
  for (let i = 0; i < ms / 20; i++) {
    const found = servers.sink.records.find(match);
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

describe('a request pipelined behind a closing answer', () => {
  it.each([
    ['Content-Encoding: gzip', 'Content-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc'],
    ['Content-Encoding: chunked', 'Content-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc'],
  ])('does not run behind a 415 for %s', async (_label, rest) => {
    let runs = 0;
    const server = await servers.start([
      { name: 'post', handler: () => 'posted' },
      {
        name: 'after',
        handler: () => {
          runs++;
          return 'ran';
        },
      },
    ]);
    const { text } = await raw(server, (socket) =>
      socket.write(`POST /post HTTP/1.1\r\nHost: x\r\n${rest}GET /after HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    // A function that runs does so within a few turns of the loop; give it ample time to show.
    await waitForRecord((r) => r['path'] === '/after', 300);
    const statuses = text.match(/HTTP\/1\.1 \d+/g) ?? [];
    expect(statuses[0]).toBe('HTTP/1.1 415');
    // Answered in order, or not run at all: never run without an answer.
    if (statuses.length === 1) expect(runs).toBe(0);
    else expect(statuses).toEqual(['HTTP/1.1 415', 'HTTP/1.1 200']);
    expect(
      servers.sink.records.some((r) => r['path'] === '/after' && r['status'] === 200 && statuses.length === 1),
    ).toBe(false);
  });
});

describe('a client that disconnects mid-body', () => {
  it('is logged and counted as 499 with the warning line', async () => {
    const server = await servers.start([{ name: 'upload', handler: () => 'stored' }]);
    const { closed } = await raw(server, (socket) => {
      socket.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789',
      );
      // Half-close: the server's parser sees the end of the stream inside the body.
      setTimeout(() => socket.end(), 50);
    });
    const line = await waitForRecord((r) => r['path'] === '/upload' && typeof r['status'] === 'number');
    expect(line?.['status']).toBe(499);
    expect(
      servers.sink.records.some(
        (r) => r.level === 'warn' && String(r.msg).includes('the client disconnected while sending the body'),
      ),
    ).toBe(true);
    expect(servers.sink.records.some((r) => String(r['error'] ?? r.msg).includes('HPE_INVALID_EOF_STATE'))).toBe(false);
    // The half-closed socket is closed by the server, not left open.
    expect(closed).toBe(true);
  });

  it('is a 499 when the connection is reset mid-body too', async () => {
    const server = await servers.start([{ name: 'upload', handler: () => 'stored' }]);
    await raw(server, (socket) => {
      socket.write(
        'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789',
      );
      setTimeout(() => socket.resetAndDestroy(), 50);
    });
    const line = await waitForRecord((r) => r['path'] === '/upload' && typeof r['status'] === 'number');
    expect(line?.['status']).toBe(499);
  });
});
