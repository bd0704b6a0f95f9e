/**
 * `service.rawBody` is the exact bytes sent (docs/handlers.md: verify signatures over them),
 * whether the body arrived in one chunk, which is handed on without a copy (read-body.ts), or
 * in several, which are joined; with a Content-Length or chunked; whatever the params decoded
 * from it (a byte order mark dropped, another charset).
 */
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBody } from '../../../runtime/body/read-body.js';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { serve } from '../../../runtime/serve/start.js';

/** A request-like stream that sends `chunks` as separate 'data' events, then ends. */
function fakeRequest(headers: Record<string, string>, chunks: Buffer[]): IncomingMessage {
  const stream = new PassThrough();
  Object.assign(stream, { headers, complete: false });
  const next = (i: number): void => {
    if (i === chunks.length) stream.end();
    else {
      stream.write(chunks[i]);
      setImmediate(next, i + 1);
    }
  };
  setImmediate(next, 0);
  return stream as unknown as IncomingMessage;
}

describe('readBody, a body of known length', () => {
  it('hands on a body that arrived in one chunk as that chunk, not a copy', async () => {
    const chunk = Buffer.from('{"name":"Ada"}');
    const body = await readBody(fakeRequest({ 'content-length': String(chunk.length) }, [chunk]), 1024, 'maxBodySize');
    expect(body).toBe(chunk);
  });

  it('joins a body that arrived in several chunks into its exact bytes', async () => {
    const chunks = [Buffer.from([0xef, 0xbb, 0xbf, 0x7b]), Buffer.from('"a":"'), Buffer.from([0xc3, 0xa9, 0x22, 0x7d])];
    const length = String(Buffer.concat(chunks).length);
    const body = await readBody(fakeRequest({ 'content-length': length }, chunks), 1024, 'maxBodySize');
    expect(body.equals(Buffer.concat(chunks))).toBe(true);
  });

  it('refuses with 413 a body that sends more than the limit, whatever its Content-Length says', async () => {
    const chunks = [Buffer.alloc(600), Buffer.alloc(600)];
    const error = await readBody(fakeRequest({ 'content-length': '1200' }, chunks), 1024, 'maxBodySize').catch(
      (e: Error & { status?: number; code?: string }) => e,
    );
    expect(error).toMatchObject({ status: 413, code: 'CLOUDFN_BODY_TOO_LARGE' });
  });
});

describe('readBody, a request already closed', () => {
  it('rejects as the client gone (ECONNRESET), not waiting for a close that came before', async () => {
    const stream = new PassThrough();
    Object.assign(stream, { headers: { 'content-length': '5' }, complete: false });
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    const error = await readBody(stream as unknown as IncomingMessage, 1024, 'maxBodySize').catch(
      (e: Error & { code?: string }) => e,
    );
    expect(error).toMatchObject({ code: 'ECONNRESET' });
  });
});

describe('service.rawBody over a socket', () => {
  let url: URL;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const server = await serve(
      [
        {
          name: 'echo',
          handler: (params, service) => ({ raw: service.rawBody.toString('base64'), params }),
        },
      ],
      {
        flags: { port: '0', host: '127.0.0.1' },
        env: {},
        logger: new Logger(createMemorySink()),
        handleSignals: false,
        keepServing: false,
      },
    );
    url = new URL(server.url);
    close = () => new Promise((resolve) => server.server.close(() => resolve()));
  });
  afterAll(() => close());

  /** Sends a POST to /echo in `pieces` (each written once the one before has left), and reads the answer. */
  async function post(headers: string[], pieces: Buffer[]): Promise<{ raw: Buffer; params: unknown }> {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const head = Buffer.from(['POST /echo HTTP/1.1', 'Host: x', 'Connection: close', ...headers, '', ''].join('\r\n'));
    // The head and the first piece together, as a client sends a small body.
    const parts = [Buffer.concat([head, pieces[0] ?? Buffer.alloc(0)]), ...pieces.slice(1)];
    for (const part of parts) {
      await new Promise<void>((resolve) => socket.write(part, () => resolve()));
      // Time for the server to read it as a chunk of its own.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await ended;
    const text = Buffer.concat(received).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    const answer = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { raw: string; params: unknown };
    return { raw: Buffer.from(answer.raw, 'base64'), params: answer.params };
  }

  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const json = Buffer.concat([bom, Buffer.from('{"name":"Jürgen","n":[1,2]}')]);

  it('is the exact bytes of a body sent in one chunk, its byte order mark kept', async () => {
    const answer = await post(['Content-Type: application/json', `Content-Length: ${json.length}`], [json]);
    expect(answer.raw.equals(json)).toBe(true);
    expect(answer.params).toEqual({ name: 'Jürgen', n: [1, 2] });
  });

  it('is the exact bytes of a body sent in several chunks', async () => {
    // Split inside the byte order mark and inside the two bytes of ü.
    const pieces = [json.subarray(0, 2), json.subarray(2, 13), json.subarray(13)];
    const answer = await post(['Content-Type: application/json', `Content-Length: ${json.length}`], pieces);
    expect(answer.raw.equals(json)).toBe(true);
    expect(answer.params).toEqual({ name: 'Jürgen', n: [1, 2] });
  });

  it('is the exact bytes of a text body in another charset', async () => {
    const gbk = Buffer.from([0xc4, 0xe3, 0xba, 0xc3]);
    const answer = await post(['Content-Type: text/plain; charset=gbk', `Content-Length: ${gbk.length}`], [gbk]);
    expect(answer.raw.equals(gbk)).toBe(true);
    expect(answer.params).toBe('你好');
  });

  it('is the exact bytes of a chunked body', async () => {
    const form = Buffer.from('name=J%C3%BCrgen&n=1&n=2');
    const pieces = [
      Buffer.from(`5\r\n${form.subarray(0, 5).toString()}\r\n`),
      Buffer.from(`${(form.length - 5).toString(16)}\r\n${form.subarray(5).toString()}\r\n0\r\n\r\n`),
    ];
    const answer = await post(
      ['Content-Type: application/x-www-form-urlencoded', 'Transfer-Encoding: chunked'],
      pieces,
    );
    expect(answer.raw.equals(form)).toBe(true);
    expect(answer.params).toEqual({ name: 'Jürgen', n: ['1', '2'] });
  });
});
