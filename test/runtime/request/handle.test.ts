import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoke } from '../../../src/testing/index.js';
import { cases, functions, routes, type CaseExpect } from '../helpers/cases.js';
import { inProcessTransport, socketTransport, type Answer, type Transport } from '../helpers/transport.js';

/** Checks an answer against a row of the table. */
export function check(answer: Answer, expected: CaseExpect): void {
  expect(answer.status).toBe(expected.status);
  const text = answer.body.toString('utf8');
  if (expected.json !== undefined) expect(JSON.parse(text)).toEqual(expected.json);
  if (expected.text !== undefined)
    expect(answer.body.toString('latin1') === expected.text || text === expected.text).toBe(true);
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    const got = answer.headers[name];
    const joined = Array.isArray(got) ? got.join(', ') : got;
    if (value === null) expect(got).toBeUndefined();
    else if (value instanceof RegExp) expect(joined).toMatch(value);
    else expect(joined).toBe(value);
  }
  if (expected.cookies !== undefined) {
    const got = answer.headers['set-cookie'] ?? [];
    expect(got).toHaveLength(expected.cookies.length);
    expected.cookies.forEach((cookie, i) =>
      cookie instanceof RegExp ? expect(got[i]).toMatch(cookie) : expect(got[i]).toBe(cookie),
    );
  }
  // Every answer carries the logid; every error answer names its code and the same logid.
  const logid = answer.headers['x-platform-logid'];
  expect(typeof logid).toBe('string');
  if (expected.code !== undefined) {
    const body = JSON.parse(text) as { error: { code: string; message: string; logid: string } };
    expect(body.error.code).toBe(expected.code);
    expect(body.error.logid).toBe(logid);
    if (expected.message !== undefined) expect(body.error.message).toContain(expected.message);
    // Internal messages and stacks never reach the client.
    expect(text).not.toMatch(/hunter2|secret rejection|\bat .*\.ts:\d+/);
  }
}

describe.each(['socket', 'in-process'])('runtime %s', (kind) => {
  let transport: Transport;
  beforeAll(async () => {
    transport = kind === 'socket' ? await socketTransport(functions, routes) : inProcessTransport(functions, routes);
  });
  afterAll(() => transport.close());

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    check(await transport.send(c.request), c.expect);
  });

  it('logs one request line per request, with logid and function', async () => {
    const answer = await transport.send({ path: '/echo?x=1', headers: { 'x-platform-logid': 'line-check-1' } });
    expect(answer.status).toBe(200);
    const lines = transport.logs().filter((r) => r.logid === 'line-check-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ function: 'echo', method: 'GET', path: '/echo', status: 200, level: 'info' });
    expect(lines[0]!.msg).toMatch(/^GET \/echo 200 [\d.]+ ms \d+ B$/);
  });

  it('logs a handler crash with its stack, keyed by the logid the client got', async () => {
    const answer = await transport.send({ path: '/fail?how=throw' });
    const logid = answer.headers['x-platform-logid'];
    const crash = transport.logs().find((r) => r.logid === logid && typeof r['stack'] === 'string');
    expect(crash?.msg).toContain('database password is hunter2');
    expect(crash?.function).toBe('fail');
  });

  it('logs "timed out after N ms" for a timeout', async () => {
    const answer = await transport.send({ path: '/slow' });
    const logid = answer.headers['x-platform-logid'];
    expect(transport.logs().some((r) => r.logid === logid && r.msg === 'timed out after 100 ms')).toBe(true);
  });
});

describe('runtime through cloudfn/testing invoke (the public in-process entry)', () => {
  const single = new Set(['echo', 'inspect', 'respond', 'fail', 'small', 'slow']);
  const rows = cases.filter((c) => single.has(c.request.path.split(/[/?]/)[1] ?? ''));

  it.each(rows.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const name = c.request.path.split(/[/?]/)[1]!;
    const spec = functions.find((f) => f.name === name)!;
    // invoke infers a Content-Type as fetch does (a string is text/plain), so bytes the case sends
    // without one go as a Buffer, which fetch sends with no Content-Type.
    const body =
      typeof c.request.body === 'string' && c.request.headers?.['content-type'] === undefined
        ? Buffer.from(c.request.body)
        : c.request.body;
    const result = await invoke(spec, {
      method: c.request.method ?? 'GET',
      path: c.request.path,
      headers: c.request.headers,
      body,
    });
    const headers: Record<string, string | string[]> = {};
    result.headers.forEach((value, key) => (headers[key] = value));
    if (result.headers.getSetCookie().length > 0) headers['set-cookie'] = result.headers.getSetCookie();
    check({ status: result.status, headers, body: result.body }, c.expect);
  });
});
