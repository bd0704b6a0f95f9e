import { describe, expect, it } from 'vitest';
import { invoke } from 'cloudfn/testing';

describe('hello', () => {
  it('greets the name in the query, and logs it with the logid', async () => {
    const res = await invoke('functions/hello.ts', { query: { name: 'Ada' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ hello: 'Ada', greeting: 'Hello, Ada', logid: res.logid });
    expect(res.logs[0]).toMatchObject({ greeted: 'Ada', function: 'hello' });
  });

  it('greets the world by default', async () => {
    const res = await invoke('functions/hello.ts');
    expect(res.json).toMatchObject({ hello: 'world' });
  });
});
