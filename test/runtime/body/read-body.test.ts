import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readBody } from '../../../runtime/body/read-body.js';

const LIMIT = 1024;

/** What the server saw for each request, in order: the body or the rejection. */
const outcomes: Array<{ body?: Buffer; error?: Error & { code?: string; status?: number } }> = [];
let waiting: (() => void) | undefined;
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    readBody(req, LIMIT, 'maxBodySize').then(
      (body) => {
        outcomes.push({ body });
        waiting?.();
        res.end(JSON.stringify({ length: body.length, sha1: createHash('sha1').update(body).digest('hex') }));
      },
      (error: Error & { code?: string; status?: number }) => {
        outcomes.push({ error });
        waiting?.();
        if (error.code === 'ECONNRESET') return;
        res.writeHead(error.status ?? 500, { connection: 'close' });
        res.end(error.code);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function nextOutcome(): Promise<(typeof outcomes)[number]> {
  const seen = outcomes.length;
  return new Promise((resolve) => {
    const check = (): void => {
      if (outcomes.length > seen) resolve(outcomes[seen] as (typeof outcomes)[number]);
      else waiting = check;
    };
    check();
  });
}

/** A raw client: `response` resolves with everything the server sent once it closes. */
function open(): { socket: Socket; response: Promise<string>; firstBytes: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let first: (value: string) => void = () => {};
  const firstBytes = new Promise<string>((resolve) => (first = resolve));
  const response = new Promise<string>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      first(text);
    });
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  return { socket, response, firstBytes };
}

function head(lines: string[]): string {
  return ['POST /fn HTTP/1.1', 'Host: 127.0.0.1', ...lines, '', ''].join('\r\n');
}

function sha1(data: string | Buffer): string {
  return createHash('sha1').update(data).digest('hex');
}

// A read that waits for bytes never sent fails within 5 s instead of the 30 s default.
describe('readBody over a real socket', { timeout: 5000 }, () => {
  it.each<[string, string, string]>([
    ['a Content-Length body', head(['Connection: close', 'Content-Length: 11']) + 'hello world', 'hello world'],
    [
      'a body of exactly the limit',
      head(['Connection: close', `Content-Length: ${LIMIT}`]) + 'x'.repeat(LIMIT),
      'x'.repeat(LIMIT),
    ],
    [
      'a chunked body',
      head(['Connection: close', 'Transfer-Encoding: chunked']) + '3\r\nabc\r\n3\r\ndef\r\n3\r\nghi\r\n0\r\n\r\n',
      'abcdefghi',
    ],
    [
      'Content-Encoding: identity',
      head(['Connection: close', 'Content-Encoding: Identity', 'Content-Length: 2']) + 'ok',
      'ok',
    ],
    ['no body', head(['Connection: close']), ''],
    ['Content-Length: 0', head(['Connection: close', 'Content-Length: 0']), ''],
    ['an empty chunked body', head(['Connection: close', 'Transfer-Encoding: chunked']) + '0\r\n\r\n', ''],
  ])('reads %s', async (_name, request, expected) => {
    const outcome = nextOutcome();
    const { socket, response } = open();
    socket.write(request);
    const text = await response;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain(JSON.stringify({ length: expected.length, sha1: sha1(expected) }));
    expect((await outcome).body?.toString()).toBe(expected);
  });

  it('answers 413 to a declared Content-Length over the limit before the body is sent', async () => {
    const { socket, response } = open();
    socket.write(head([`Content-Length: ${LIMIT + 1}`]));
    // Nothing of the body was written: the answer must come anyway.
    const text = await response;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/connection: close/i);
    expect(text).toContain('CLOUDFN_BODY_TOO_LARGE');
    expect(outcomes.at(-1)?.error?.message).toContain('larger than 1024 bytes, the limit set by maxBodySize');
  });

  it('answers 413 to a chunked body as soon as it passes the limit', async () => {
    const seen = outcomes.length;
    const { socket, response, firstBytes } = open();
    socket.write(head(['Transfer-Encoding: chunked']));
    const chunk = `200\r\n${'y'.repeat(512)}\r\n`;
    socket.write(chunk);
    socket.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(outcomes.length).toBe(seen); // 1024 bytes: still within the limit, still reading
    socket.write(chunk);
    // The answer arrives while the body is still open (no terminating 0-size chunk sent).
    expect(await firstBytes).toMatch(/^HTTP\/1\.1 413 /);
    expect(socket.destroyed).toBe(false);
    expect(await response).toContain('CLOUDFN_BODY_TOO_LARGE');
  });

  it.each(['gzip', 'br', 'deflate, gzip'])('answers 415 to Content-Encoding: %s', async (encoding) => {
    const { socket, response } = open();
    socket.write(head([`Content-Encoding: ${encoding}`, 'Content-Length: 4']) + 'abcd');
    const text = await response;
    expect(text).toMatch(/^HTTP\/1\.1 415 /);
    expect(text).toContain('CLOUDFN_UNSUPPORTED_ENCODING');
    expect(outcomes.at(-1)?.error?.message).toContain(`Content-Encoding ${encoding} is not decoded`);
  });

  it.each([
    ['a Content-Length body', head(['Content-Length: 100']) + 'only ten b'],
    ['a chunked body', head(['Transfer-Encoding: chunked']) + '5\r\nabcde\r\n'],
  ])('rejects with ECONNRESET when the client aborts %s', async (_name, request) => {
    const outcome = nextOutcome();
    const { socket } = open();
    socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    const { error } = await outcome;
    expect(error?.code).toBe('ECONNRESET');
  });

  it('keeps serving after all of the above', async () => {
    const { socket, response } = open();
    socket.write(head(['Connection: close', 'Content-Length: 2']) + 'hi');
    expect(await response).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('readBody over raw-body', () => {
  /** A request-like stream: raw-body reads any readable stream with headers beside it. */
  function fakeRequest(headers: Record<string, string>, chunks: string[]): IncomingMessage {
    const stream = new PassThrough() as unknown as IncomingMessage;
    Object.assign(stream, { headers, complete: false });
    setImmediate(() => {
      for (const chunk of chunks) (stream as unknown as PassThrough).write(chunk);
      (stream as unknown as PassThrough).end();
    });
    return stream;
  }

  it('answers 400 naming both lengths when the bytes do not match the Content-Length', async () => {
    const error = await readBody(fakeRequest({ 'content-length': '10' }, ['short']), LIMIT, 'maxBodySize').catch(
      (e: Error & { status?: number; code?: string }) => e,
    );
    expect(error).toMatchObject({ status: 400, code: 'CLOUDFN_BAD_REQUEST' });
    expect((error as Error).message).toContain('the body has 5 bytes but Content-Length says 10');
  });

  it('reads a body of known length that arrives in several chunks, in order', async () => {
    const body = await readBody(fakeRequest({ 'content-length': '11' }, ['hel', 'lo ', 'world']), LIMIT, 'maxBodySize');
    expect(body.toString()).toBe('hello world');
    expect(body.length).toBe(11);
  });

  it.each<[string, number, string[], number]>([
    ['short of', 10, ['ab', 'cd'], 4],
    ['past', 4, ['ab', 'cd', 'ef'], 6],
  ])('answers 400 to several chunks that end %s the Content-Length', async (_name, declared, chunks, received) => {
    const error = await readBody(
      fakeRequest({ 'content-length': String(declared) }, chunks),
      LIMIT,
      'maxBodySize',
    ).catch((e: Error & { status?: number; code?: string }) => e);
    expect(error).toMatchObject({ status: 400, code: 'CLOUDFN_BAD_REQUEST' });
    expect((error as Error).message).toContain(`the body has ${received} bytes but Content-Length says ${declared}`);
  });

  it('reads a body that arrives before raw-body is loaded (a module not yet imported)', async () => {
    vi.resetModules();
    const fresh = await import('../../../runtime/body/read-body.js');
    expect(fresh.rawBody.value).toBeUndefined();
    const body = await fresh.readBody(
      fakeRequest({ 'transfer-encoding': 'chunked' }, ['ab', 'cd']),
      LIMIT,
      'maxBodySize',
    );
    expect(body.toString()).toBe('abcd');
    expect(typeof fresh.rawBody.value?.read).toBe('function');
  });
});
