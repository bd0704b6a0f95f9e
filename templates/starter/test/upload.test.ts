import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { invoke } from 'cloudfn/testing';

function form(fields: Record<string, string>, file?: { name: string; type: string; content: Buffer }): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) body.append(key, value);
  if (file) body.append('file', new Blob([file.content], { type: file.type }), file.name);
  return body;
}

describe('upload', () => {
  it('answers the file it received with its SHA-256, and the text fields', async () => {
    const content = Buffer.from('a tiny picture');
    const res = await invoke('functions/upload.ts', {
      body: form({ title: 'cat', tag: 'pet' }, { name: 'cat.png', type: 'image/png', content }),
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      name: 'cat.png',
      type: 'image/png',
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      fields: { title: 'cat', tag: 'pet' },
    });
    expect(res.logs[0]).toMatchObject({ uploaded: 'cat.png', function: 'upload' });
  });

  it('asks for a file part when there is none', async () => {
    const res = await invoke('functions/upload.ts', { body: form({ title: 'no file' }) });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { message: expect.stringContaining('no file part named "file"') } });
  });

  it('asks for multipart when it gets something else', async () => {
    expect((await invoke('functions/upload.ts', { body: { file: 'not a file' } })).status).toBe(415);
    expect((await invoke('functions/upload.ts')).status).toBe(415);
  });

  it('refuses a file over config.maxFileSize with 413', async () => {
    const res = await invoke('functions/upload.ts', {
      body: form({}, { name: 'big.bin', type: 'application/octet-stream', content: Buffer.alloc(5 * 1024 * 1024 + 1) }),
    });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: { code: 'CLOUDFN_MULTIPART_LIMIT' } });
  });
});
