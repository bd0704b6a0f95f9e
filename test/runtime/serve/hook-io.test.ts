/**
 * What the extensions' hooks share (runtime/serve/hook-io.ts), over a real socket: a JSON
 * answer with its length and no caching (none of the body for HEAD), an error in the JSON error
 * shape (a CloudfnError's status, anything else 500, `allow` on a 405), and a body read whole up
 * to a limit, undefined past it.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CloudfnError } from '../../../runtime/errors.js';
import { readBodyUpTo, sendJson, sendJsonError } from '../../../runtime/serve/hook-io.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('sendJson and sendJsonError', () => {
  it('answers JSON with its length, never cached, and no body for HEAD', async () => {
    const url = await listen((req, res) => sendJson(res, 201, { ok: 'é' }, { head: req.method === 'HEAD' }));
    const res = await fetch(url);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"ok":"é"}')));
    expect(await res.json()).toEqual({ ok: 'é' });
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength('{"ok":"é"}')));
    expect(await head.text()).toBe('');
  });

  it('answers a CloudfnError with its status and code, anything else as a 500, and a 405 with allow', async () => {
    const errors: unknown[] = [
      new CloudfnError('CLOUDFN_TRIGGER_METHOD', 405, 'method GET is not allowed'),
      new Error('the disk is full'),
    ];
    const url = await listen((_req, res) => sendJsonError(res, errors.shift(), { allow: 'POST' }));
    const refused = await fetch(url);
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
    const body = (await refused.json()) as { error: { code: string; message: string; logid: string } };
    expect(body.error).toMatchObject({ code: 'CLOUDFN_TRIGGER_METHOD', message: 'method GET is not allowed' });
    expect(body.error.logid).toMatch(/^[0-9a-f]{24}$/);
    const failed = await fetch(url);
    expect(failed.status).toBe(500);
    expect(failed.headers.get('allow')).toBeNull();
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('CLOUDFN_HANDLER_ERROR');
  });
});

describe('readBodyUpTo', () => {
  async function post(url: string, body: Buffer, chunked: boolean): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: chunked ? {} : { 'content-length': body.length } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      req.on('error', reject);
      if (chunked) {
        req.write(body.subarray(0, 10));
        req.end(body.subarray(10));
      } else req.end(body);
    });
  }

  it.each([false, true])('reads a body up to the limit, and gives undefined past it (chunked: %s)', async (chunked) => {
    const url = await listen(
      (req, res) =>
        void readBodyUpTo(req, 64).then((body) =>
          sendJson(res, 200, { length: body?.length ?? null }, { headers: { connection: 'close' } }),
        ),
    );
    expect(await post(url, Buffer.alloc(64, 1), chunked)).toEqual({ length: 64 });
    expect(await post(url, Buffer.alloc(65, 1), chunked)).toEqual({ length: null });
  });
});
