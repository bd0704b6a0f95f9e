/**
 * The body read keeps the request's async context: a handler reads the AsyncLocalStorage store
 * entered around the server's 'request' event (as a tracer's instrumentation of node:http does),
 * whether the body had a Content-Length (read by read-body.ts) or was chunked (by raw-body).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { serve } from '../../../runtime/serve/start.js';

const als = new AsyncLocalStorage<string>();
let url: string;
let close: () => void;

beforeAll(async () => {
  const server = await serve([{ name: 'store', handler: () => ({ store: als.getStore() ?? null }) }], {
    flags: { port: '0', host: '127.0.0.1' },
    env: {},
    logger: new Logger(createMemorySink()),
    handleSignals: false,
    keepServing: false,
  });
  const http = server.server;
  const emit = http.emit;
  let n = 0;
  http.emit = function (this: typeof http, event: string, ...args: unknown[]) {
    const forward = (): boolean => Reflect.apply(emit, this, [event, ...args]) as boolean;
    if (event === 'request') return als.run(`request ${++n}`, forward);
    return forward();
  } as typeof emit;
  url = server.url;
  close = () => {
    http.closeAllConnections();
    http.close();
  };
});
afterAll(() => close());

/** POSTs `body` to /store, with a Content-Length or chunked, and returns the store the handler saw. */
function post(body: string, chunked: boolean): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/store`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve((JSON.parse(text) as { store: unknown }).store));
    });
    req.on('error', reject);
    if (chunked) req.setHeader('transfer-encoding', 'chunked');
    else req.setHeader('content-length', Buffer.byteLength(body));
    req.end(body);
  });
}

it('keeps the store of the request for a body with a Content-Length and a chunked one', async () => {
  expect(await post('{"a":1}', false)).toBe('request 1');
  expect(await post('{"a":2}', true)).toBe('request 2');
  expect(await post('{"a":3}', false)).toBe('request 3');
});
