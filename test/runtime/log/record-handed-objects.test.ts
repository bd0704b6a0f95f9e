/**
 * The logging rule (docs/platform-contract.md#logging) for the objects cloudfn itself hands a
 * handler: params of every Content-Type, the query, the cookies, the headers, an UploadFile,
 * and null-prototype objects in general. Each must log exactly as a plain object with the same
 * fields does, alone (its fields become the line's) and after a message (printed in `msg`).
 */
import { describe, expect, it } from 'vitest';
import { toRecord } from '../../../runtime/log/record.js';
import type { Handler, Service } from '../../../runtime/index.js';
import { invoke } from '../../../src/testing/index.js';
import type { LogRecord } from '../../../runtime/log/record.js';

/** The handler's own lines, without the runtime's request line. */
function handlerLines(logs: readonly LogRecord[]): LogRecord[] {
  return logs.filter((line) => line.level === 'log');
}

/** Logs the object `pick` chooses, alone and after a message, and answers with a plain copy. */
function probe(pick: (params: unknown, service: Service) => object): Handler {
  return (params, service) => {
    const value = pick(params, service);
    service.log(value);
    service.log('called with', value);
    return { ok: true };
  };
}

/** What the two lines must be: those of a plain object holding the same fields. */
function expectAsPlain(lines: readonly LogRecord[], plain: Record<string, unknown>): void {
  expect(lines).toHaveLength(2);
  const [alone, after] = lines as [LogRecord, LogRecord];
  const want = toRecord('log', alone.logid, 'probe', [plain]);
  const { time: _t1, ...aloneRest } = alone;
  const { time: _t2, ...wantRest } = want;
  // The trace ids come from the request; the plain record has none.
  expect({ ...aloneRest, trace_id: undefined, span_id: undefined }).toEqual({
    ...wantRest,
    trace_id: undefined,
    span_id: undefined,
  });
  expect(after.msg).toBe(toRecord('log', 'L', 'probe', ['called with', plain]).msg);
  expect(after.msg).not.toMatch(/null prototype|NullObject/);
}

describe('the logging rule for objects without a prototype', () => {
  it('turns a bare null-prototype object into fields', () => {
    const bare = Object.assign(Object.create(null) as object, { x: '1' });
    expect(toRecord('info', 'L', 'f', [bare])).toMatchObject({ x: '1', logid: 'L', function: 'f' });
    expect(toRecord('info', 'L', 'f', ['got', bare]).msg).toBe("got { x: '1' }");
    const nested = { outer: Object.assign(Object.create(null) as object, { y: 2 }) };
    expect(toRecord('info', 'L', 'f', ['got', nested]).msg).toBe('got { outer: { y: 2 } }');
  });

  it('still prints arrays and class instances as console.log does', () => {
    expect(toRecord('info', 'L', 'f', [[1, 2]]).msg).toBe('[ 1, 2 ]');
    expect(toRecord('info', 'L', 'f', [new Map([['a', 1]])]).msg).toBe("Map(1) { 'a' => 1 }");
  });

  it.each([
    ['GET params', { path: '/probe?x=1&y=2' }, { x: '1', y: '2' }],
    ['urlencoded params', { body: new URLSearchParams({ x: '1', y: '2' }) }, { x: '1', y: '2' }],
    ['JSON params', { body: { x: '1', n: 2 } }, { x: '1', n: 2 }],
  ] as const)('logs %s as a plain object', async (_label, request, plain) => {
    const result = await invoke({ name: 'probe', handler: probe((params) => params as object) }, request);
    expect(result.status).toBe(200);
    expectAsPlain(handlerLines(result.logs), plain);
  });

  it('logs multipart params and an UploadFile as plain objects', async () => {
    const form = new FormData();
    form.set('note', 'hi');
    form.set('file', new Blob([Buffer.from('abc')], { type: 'text/plain' }), 'a.txt');
    const result = await invoke(
      { name: 'probe', handler: probe((params) => (params as { file: object }).file) },
      { body: form },
    );
    expect(result.status).toBe(200);
    expectAsPlain(handlerLines(result.logs), {
      name: 'a.txt',
      type: 'text/plain',
      size: 3,
      buffer: Buffer.from('abc'),
    });
    const whole = await invoke({ name: 'probe', handler: probe((params) => params as object) }, { body: form });
    const [alone] = handlerLines(whole.logs);
    expect(alone).toMatchObject({ note: 'hi', file: { name: 'a.txt', size: 3 } });
  });

  it('logs service.query, service.cookies and service.headers as plain objects', async () => {
    const request = { method: 'POST', path: '/probe?q=1', body: 'text', cookies: { sid: 'abc' } };
    const query = await invoke({ name: 'probe', handler: probe((_p, service) => service.query) }, request);
    expectAsPlain(handlerLines(query.logs), { q: '1' });
    const cookies = await invoke({ name: 'probe', handler: probe((_p, service) => service.cookies) }, request);
    expectAsPlain(handlerLines(cookies.logs), { sid: 'abc' });
    const headers = await invoke(
      { name: 'probe', handler: probe((_p, service) => service.headers) },
      { ...request, headers: { 'x-probe': 'yes' } },
    );
    const [alone, after] = handlerLines(headers.logs) as [LogRecord, LogRecord];
    expect(alone).toMatchObject({ 'x-probe': 'yes', cookie: 'sid=abc', function: 'probe' });
    expect(after.msg).toMatch(/^called with \{.*'x-probe': 'yes'/s);
    expect(after.msg).not.toMatch(/null prototype/);
  });
});
