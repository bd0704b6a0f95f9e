// Run by node:test (`node --test`), not vitest: cloudfn/testing needs no test framework.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeService, invoke } from 'cloudfn/testing';

const hello = async (params, service) => {
  service.log({ greeted: params.name ?? 'world' });
  service.setCookie('greeted', '1', { httpOnly: true });
  return { hello: params.name ?? 'world' };
};

test('invoke runs the pipeline under node:test', async () => {
  const res = await invoke(hello, { path: '/hello', query: { name: 'Ada' } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { hello: 'Ada' });
  assert.equal(res.cookies.greeted.httpOnly, true);
  assert.equal(res.logs[0].greeted, 'Ada');
  assert.equal(res.logs[0].function, 'hello');
});

test('invoke loads a TypeScript file by path under node:test', async () => {
  const res = await invoke('templates/starter/functions/hello.ts', { body: { name: 'Grace' } });
  assert.equal(res.status, 200);
  assert.equal(res.json.hello, 'Grace');
});

test('the fake service records under node:test', async () => {
  const service = createFakeService({ path: '/hello' });
  assert.deepEqual(await hello({ name: 'Lin' }, service), { hello: 'Lin' });
  assert.equal(service.recorded.cookies.greeted.value, '1');
  assert.equal(service.recorded.logs[0].function, 'hello');
});
