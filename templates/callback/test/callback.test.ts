import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signCallback } from 'cloudfn/sign';
import { invoke } from 'cloudfn/testing';

// A key pair made for this run stands in for the platform's: the test signs as the platform.
let platformPrivateKey: string;
beforeAll(() => {
  const pair = generateKeyPair();
  platformPrivateKey = pair.privateKeyPem;
  process.env.PLATFORM_PUBLIC_KEY = pair.publicKeyPem;
});

const event = {
  event: 'upload.finished',
  app_id: 'tt-dev-app',
  create_time: 1700000000,
  data: { vid: 'v1', state: 'success' },
};

function signed(body: string, options: { timestamp?: number; nonce?: string } = {}) {
  return { 'content-type': 'application/json', ...signCallback({ privateKey: platformPrivateKey, body, ...options }) };
}

describe('callback', () => {
  it('accepts a callback signed by the platform and logs the event', async () => {
    const body = JSON.stringify(event);
    const res = await invoke('functions/callback.ts', { method: 'POST', headers: signed(body), body });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: 'upload.finished' });
    expect(res.logs[0]).toMatchObject({
      callback: 'upload.finished',
      vid: 'v1',
      state: 'success',
      function: 'callback',
    });
  });

  it('refuses a body changed after signing', async () => {
    const body = JSON.stringify(event);
    const tampered = body.replace('"v1"', '"v2"');
    const res = await invoke('functions/callback.ts', { method: 'POST', headers: signed(body), body: tampered });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: { code: expect.stringMatching(/^SIGN_/) } });
  });

  it('refuses a replayed nonce', async () => {
    const body = JSON.stringify(event);
    const headers = signed(body, { nonce: 'a-nonce-used-once-0123456789abcd' });
    expect((await invoke('functions/callback.ts', { method: 'POST', headers, body })).status).toBe(200);
    expect((await invoke('functions/callback.ts', { method: 'POST', headers, body })).status).toBe(401);
  });

  it('refuses a timestamp older than an hour', async () => {
    const body = JSON.stringify(event);
    const res = await invoke('functions/callback.ts', {
      method: 'POST',
      headers: signed(body, { timestamp: Math.floor(Date.now() / 1000) - 3700 }),
      body,
    });
    expect(res.status).toBe(401);
  });

  it('refuses a callback without signature headers', async () => {
    const res = await invoke('functions/callback.ts', { body: event });
    expect(res.status).toBe(401);
  });
});
