/**
 * invoke(module) and invoke({ handler, config }) apply the function's config as `cloudfn start`
 * does; isUploadFile tells a file part. The types (params and the JSON result inferred from a
 * typed Handler, isUploadFile narrowing) are type tests, in invoke-types.test-d.ts.
 */
import { describe, expect, it } from 'vitest';
import { isUploadFile, type Handler } from '../../src/index.js';
import { invoke } from '../../src/testing/index.js';
import * as limited from './modules/limited-upload.js';

function upload(bytes: number): FormData {
  const form = new FormData();
  form.append('file', new Blob([Buffer.alloc(bytes)]), 'big.bin');
  return form;
}

describe('invoke with a module', () => {
  it('applies its export const config: a 2 MiB upload against a 1 MiB maxBodySize is 413', async () => {
    const big = await invoke(limited, { path: '/upload', body: upload(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ error: { code: 'CLOUDFN_BODY_TOO_LARGE' } });
    const small = await invoke(limited, { path: '/upload', body: upload(1000) });
    expect(small.status).toBe(200);
    expect(small.json).toEqual({ name: 'big.bin', size: 1000 });
  });

  it('applies the config of { handler, config } too, and names the function from the path', async () => {
    const res = await invoke(
      { handler: limited.default, config: { maxBodySize: 100 } },
      { path: '/up', body: 'x'.repeat(101) },
    );
    expect(res.status).toBe(413);
    expect(res.logs.at(-1)).toMatchObject({ function: 'up' });
  });

  it('checks the module as start-up does', async () => {
    await expect(invoke({ default: { hello: 'world' } } as never)).rejects.toThrow(
      'its default export (or module.exports) is an object with keys hello, not a function',
    );
    await expect(invoke({ default: () => 1, config: { timeout: 'soon' } } as never)).rejects.toThrow(
      'config.timeout must be a whole number of milliseconds, got "soon"',
    );
  });
});

describe('invoke types', () => {
  const hello: Handler<{ name?: string }, { hello: string; at: Date }> = (params) => ({
    hello: params.name ?? 'world',
    at: new Date(0),
  });

  it('infers the JSON result from a typed Handler, and its params for the request', async () => {
    const res = await invoke(hello, { query: { name: 'Ada' } });
    expect(res.json).toEqual({ hello: 'Ada', at: '1970-01-01T00:00:00.000Z' });
  });
});

describe('isUploadFile', () => {
  it('is true for a file part only', () => {
    expect(isUploadFile({ name: 'a.txt', type: 'text/plain', size: 1, buffer: Buffer.from('a') })).toBe(true);
    for (const value of [
      'a.txt',
      ['a', 'b'],
      null,
      undefined,
      { name: 'a', buffer: 'x' },
      { buffer: Buffer.from('a') },
    ])
      expect(isUploadFile(value)).toBe(false);
  });
});
