/**
 * The fetch, Headers and AbortController that cloudfn's clients use where Node 14 has none,
 * driven over a real socket on port 0 and compared with the global fetch's answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FallbackHeaders, nodeFetch } from '../../src/fetch-fallback/index.js';
import { createAbortController } from '../../src/fetch-fallback/abort.js';

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 2_000);
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('x-echo', req.headers['x-in'] ?? '');
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, body, length: req.headers['content-length'] ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('nodeFetch', () => {
  it('sends method, headers and body and reads what the global fetch reads', async () => {
    const init = { method: 'POST', headers: { 'x-in': 'yes' }, body: '{"é":1}' };
    const [ours, theirs] = await Promise.all([nodeFetch(`${url}/x`, init), fetch(`${url}/x`, init)]);
    expect(ours.status).toBe(theirs.status);
    expect(ours.headers.get('x-echo')).toBe(theirs.headers.get('x-echo'));
    expect(ours.headers.getSetCookie()).toEqual(theirs.headers.getSetCookie());
    expect(Buffer.from(await ours.arrayBuffer()).toString()).toBe(await theirs.text());
  });

  it('rejects with the network error code in cause when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = (await nodeFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('stops a request when the fallback controller aborts', async () => {
    const controller = createAbortController();
    const pending = nodeFetch(`${url}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('timed out after 50 ms')), 50);
    await expect(pending).rejects.toThrow('timed out after 50 ms');
  });
});

describe('FallbackHeaders', () => {
  it('is case-insensitive, joins repeated values and keeps Set-Cookie apart', () => {
    const headers = new FallbackHeaders({ 'Content-Type': 'text/plain' });
    headers.append('Set-Cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    headers.set('X-A', '1');
    expect(headers.get('content-type')).toBe('text/plain');
    expect(headers.has('x-a')).toBe(true);
    expect(headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const seen: string[] = [];
    headers.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(['content-type=text/plain', 'set-cookie=a=1, b=2', 'x-a=1']);
  });
});
