import { expect, it } from 'vitest';
import { invoke } from 'cloudfn/testing';

// The timer's firing carries its params as the body and `trigger: 'timer'`; any other caller is refused.
it('settles the rounds when its timer fires', async () => {
  const res = await invoke('functions/settle.ts', { method: 'POST', body: { job: 'settle-rounds' }, trigger: 'timer' });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ settled: 'settle-rounds' });
});

it('refuses a call that is not its timer', async () => {
  const res = await invoke('functions/settle.ts', { method: 'POST', body: { job: 'settle-rounds' } });
  expect(res.status).toBe(403);
});
