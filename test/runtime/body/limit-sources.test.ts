/** A 413 names where its limit came from: the function's own config, or the global option. */
import { describe, expect, it } from 'vitest';
import { invoke } from '../../../src/testing/index.js';

const echo = (params: unknown) => params;

describe('413 messages', () => {
  it('name the function config when the limit is the function’s own', async () => {
    const res = await invoke<any>(
      { name: 'upload', handler: echo, config: { maxBodySize: 10 } },
      { body: 'x'.repeat(11) },
    );
    expect(res.status).toBe(413);
    expect(res.json.error.message).toBe(
      'the body is larger than 10 bytes, the limit set by the function\'s config.maxBodySize (export const config in upload, or functions["upload"] in cloudfn.config); send less, or raise that limit',
    );
  });

  it('name the global option, and its variable, otherwise', async () => {
    const res = await invoke<any>(
      echo,
      { path: '/hello', body: 'x'.repeat(11) },
      { runtime: { limits: { maxBodySize: 10 } } as never },
    );
    expect(res.status).toBe(413);
    expect(res.json.error.message).toBe(
      'the body is larger than 10 bytes, the limit set by the global option limits.maxBodySize (its default; set CLOUDFN_MAX_BODY_SIZE or limits in cloudfn.config); send less, or raise that limit',
    );
  });

  it('name the source of a multipart limit too', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(100)]), 'a.bin');
    const own = await invoke<any>({ name: 'upload', handler: echo, config: { maxFileSize: 50 } }, { body: form });
    expect(own.status).toBe(413);
    expect(own.json.error).toMatchObject({
      code: 'CLOUDFN_MULTIPART_LIMIT',
      message: expect.stringContaining("the limit set by the function's config.maxFileSize"),
    });
    const global = await invoke<any>(
      echo,
      { path: '/upload', body: form },
      { runtime: { limits: { maxFileSize: 50 } } as never },
    );
    expect(global.json.error.message).toContain(
      'the limit set by the global option limits.maxFileSize (its default; set CLOUDFN_MAX_FILE_SIZE or limits in cloudfn.config)',
    );
  });
});
