import { describe, expect, it } from 'vitest';
import { invoke } from 'cloudfn/testing';

describe('hello', () => {
  it('greets the name in the query', async () => {
    const res = await invoke('functions/hello.ts', { query: { name: 'Ada' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ hello: 'Ada', trigger: 'online', logid: res.logid });
  });

  it('takes a JSON body too, and logs with the logid and the function name', async () => {
    const res = await invoke('functions/hello.ts', { body: { name: 'Grace' } });
    expect(res.json).toMatchObject({ hello: 'Grace' });
    expect(res.logs[0]).toMatchObject({ greeted: 'Grace', logid: res.logid, function: 'hello' });
  });

  it('refuses an empty name with 400, naming the field', async () => {
    const res = await invoke('functions/hello.ts', { query: { name: '' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 'CLOUDFN_BAD_PARAMS', issues: [{ path: '/name', message: 'name must not be empty' }] },
    });
  });

  it('greets the world by default', async () => {
    const res = await invoke('functions/hello.ts');
    expect(res.json).toMatchObject({ hello: 'world' });
  });
});
