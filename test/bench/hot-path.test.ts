/**
 * The tuned hot paths of the runtime (docs/performance.md) must give exactly what the plain
 * code gives: the hand-built request line is the record serializeRecord would write.
 */
import { describe, expect, it } from 'vitest';
import { Logger, createJsonSink, createMemorySink, serializeRecord, type LogRecord } from '../../runtime/logger.js';

function linesOf(run: (logger: Logger) => void): string[] {
  const writes: string[] = [];
  const sink = createJsonSink((text) => writes.push(text));
  run(new Logger(sink));
  sink.flush();
  return writes.join('').split('\n').filter((line) => line !== '');
}

describe('the request line built as text', () => {
  const cases: [string, string, string, number, number, number, string, string | undefined][] = [
    ['hello', 'GET', '/hello', 200, 0.3, 17, 'online', undefined],
    ['videos/list', 'POST', '/videos/list/x', 413, 12.5, 180, 'ide_debug', 'CLOUDFN_BODY_TOO_LARGE: the body is larger than maxBodySize (10 bytes); send less or raise maxBodySize'],
    ['we"ird\\name', 'GET', '/a"b\\c/%E4%BD%A0\u00e9', 500, 0, 0, 'console_debug', 'quote " backslash \\ newline \n tab \t nul \u0000 and 你好'],
  ];

  it.each(cases)('is byte for byte the serialized record (%s)', (fn, method, path, status, ms, bytes, trigger, error) => {
    const [line] = linesOf((logger) => logger.request(status >= 500 ? 'error' : 'info', 'L1', fn, method, path, status, ms, bytes, trigger, error));
    const parsed = JSON.parse(line!) as LogRecord;
    const expected: Record<string, unknown> = { level: parsed.level, time: parsed.time, method, path, status, durationMs: ms, bytes, trigger };
    if (error !== undefined) expected['error'] = error;
    expected['logid'] = 'L1';
    expected['function'] = fn;
    expected['msg'] = `${method} ${path} ${status} ${ms} ms ${bytes} B`;
    expect(line).toBe(serializeRecord(expected as LogRecord));
    expect(typeof parsed.time).toBe('number');
  });

  it('gives a record sink the same fields as a record', () => {
    const memory = createMemorySink();
    new Logger(memory).request('warn', 'L2', 'hello', 'GET', '/hello', 404, 1.5, 99, 'online', 'CLOUDFN_NOT_FOUND: x');
    expect(memory.records).toHaveLength(1);
    const { time, ...rest } = memory.records[0]!;
    expect(typeof time).toBe('number');
    expect(Object.keys(memory.records[0]!)).toEqual(['level', 'time', 'method', 'path', 'status', 'durationMs', 'bytes', 'trigger', 'error', 'logid', 'function', 'msg']);
    expect(rest).toEqual({ level: 'warn', method: 'GET', path: '/hello', status: 404, durationMs: 1.5, bytes: 99, trigger: 'online', error: 'CLOUDFN_NOT_FOUND: x', logid: 'L2', function: 'hello', msg: 'GET /hello 404 1.5 ms 99 B' });
  });

  it('falls back to a cut, marked record when the line is too long', () => {
    const [line] = linesOf((logger) => logger.request('info', 'L3', 'f', 'GET', '/' + 'x'.repeat(1024 * 1024), 200, 1, 1, 'online', undefined));
    expect(JSON.parse(line!)).toMatchObject({ truncated: true, logid: 'L3', function: 'f' });
  });
});

describe('generated log ids', () => {
  it('keep their shape: 12 hex digits of time, 6 of process, 6 of a counter that counts up', async () => {
    const { generateLogid } = await import('../../runtime/logid.js');
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, () => generateLogid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    const time = parseInt(ids[0]!.slice(0, 12), 16);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now());
    expect(new Set(ids.map((id) => id.slice(12, 18))).size).toBe(1);
    const counters = ids.map((id) => parseInt(id.slice(18), 16));
    for (let i = 1; i < counters.length; i++) expect(counters[i]).toBe((counters[i - 1]! + 1) & 0xffffff);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
