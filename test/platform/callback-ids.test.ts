/**
 * The emulator's callbacks carry an id and, with the `duplicate-callback` fault, come twice;
 * `callbackMiddleware({ dedupe: true })` then hands the notification to the handler once,
 * answers the duplicate 200, and releases the claim when the handler fails so a retry is handled.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CallbackSender } from '../../src/platform/media-api/jobs/callbacks.js';
import { parseFaults } from '../../src/platform/index.js';
import { callbackMiddleware, MemoryNonceStore, signCallback } from '../../src/sign/index.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A provider's endpoint: the middleware with de-duplication, then a handler that counts (and may fail). */
async function endpoint(
  failFirst = 0,
): Promise<{ url: string; handled: string[]; answers: number[]; store: MemoryNonceStore }> {
  const handled: string[] = [];
  const answers: number[] = [];
  const store = new MemoryNonceStore();
  const verify = callbackMiddleware({ publicKey, nonceStore: store, dedupe: true });
  let failures = failFirst;
  server = createServer((req, res) => {
    res.on('finish', () => answers.push(res.statusCode));
    verify(req, res, () => {
      if (failures > 0) {
        failures--;
        res.writeHead(500).end();
        return;
      }
      handled.push((req as { body?: { id: string } }).body!.id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`, handled, answers, store };
}

function sender(url: string, duplicate: boolean): CallbackSender {
  return new CallbackSender(
    { url, retries: 2, backoffMs: 10, timeoutMs: 5000, duplicate: () => duplicate },
    (body) => signCallback({ privateKey, body }),
    () => undefined,
  );
}

describe('callback ids and duplicate deliveries', () => {
  it('parses the duplicate-callback fault', () => {
    expect(parseFaults('duplicate-callback=0.5')).toEqual({ duplicateCallback: { rate: 0.5 } });
  });

  it('delivers twice with one id; the middleware hands it to the handler once and answers the copy 200', async () => {
    const site = await endpoint();
    const callbacks = sender(site.url, true);
    callbacks.send({ event: 'upload.finished', app_id: 'tt1', create_time: 1, data: { vid: 'v1' } });
    await callbacks.idle();
    expect(callbacks.attempts).toHaveLength(2);
    expect(site.handled).toHaveLength(1);
    expect(site.handled[0]).toMatch(/^cb_[0-9a-f]{24}$/);
    expect(site.answers.sort()).toEqual([200, 204]);
  });

  it('releases the claim when the handler fails, so the platform retry is handled', async () => {
    const site = await endpoint(1);
    const callbacks = sender(site.url, false);
    callbacks.send({ event: 'transcode.finished', app_id: 'tt1', create_time: 1, data: { vid: 'v2' } });
    await callbacks.idle();
    expect(callbacks.attempts.map((a) => a.status)).toEqual([500, 204]);
    expect(site.handled).toHaveLength(1);
  });

  it('passes a body without an id through, and gives distinct notifications distinct ids', async () => {
    const site = await endpoint();
    const body = '{"event":"x","app_id":"tt1"}';
    for (let i = 0; i < 2; i++) {
      const response = await fetch(site.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signCallback({ privateKey, body }) },
        body,
      });
      expect(response.status).toBe(204);
    }
    expect(site.handled).toHaveLength(2);
    const callbacks = sender(site.url, false);
    callbacks.send({ event: 'a', app_id: 'tt1', create_time: 1, data: {} });
    callbacks.send({ event: 'b', app_id: 'tt1', create_time: 1, data: {} });
    await callbacks.idle();
    expect(new Set(site.handled.slice(2)).size).toBe(2);
  });
});
