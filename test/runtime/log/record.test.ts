import { describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { serializeRecord, toRecord } from '../../../runtime/log/record.js';
import { createJsonSink, createMemorySink } from '../../../runtime/log/sinks.js';

describe('toRecord (platform contract, logging rule)', () => {
  it('adds logid and function to an object, overwriting same-named fields', () => {
    const record = toRecord('info', 'L1', 'hello', [{ user: 7, logid: 'forged', function: 'other' }]);
    expect(record).toMatchObject({ level: 'info', user: 7, logid: 'L1', function: 'hello' });
  });

  it('treats the JSON text of an object like the object', () => {
    expect(toRecord('warn', 'L2', 'f', ['{"a":1,"logid":"x"}'])).toMatchObject({
      a: 1,
      logid: 'L2',
      function: 'f',
      level: 'warn',
    });
  });

  it('formats other values as console.log would, all arguments, with logid and function', () => {
    const record = toRecord('log', 'L3', 'f', ['count %d of', 3, [1, 2], 'done']);
    expect(record.msg).toBe('count 3 of [ 1, 2 ] done');
    expect(record).toMatchObject({ logid: 'L3', function: 'f' });
    expect(toRecord('log', 'L', 'f', ['{not json']).msg).toBe('{not json');
    expect(toRecord('log', 'L', 'f', [new Error('boom')]).msg).toContain('Error: boom');
  });

  it('keeps the five methods alike but for the level', () => {
    for (const level of ['log', 'debug', 'info', 'warn', 'error'] as const) {
      expect(toRecord(level, 'L', 'f', [{ a: 1 }])).toMatchObject({ level, a: 1, logid: 'L', function: 'f' });
    }
  });
});

describe('serializeRecord', () => {
  it('survives circular objects and BigInts', () => {
    const loop: Record<string, unknown> = { n: 1n };
    loop['self'] = loop;
    const line = serializeRecord(toRecord('info', 'L', 'f', [loop]));
    expect(JSON.parse(line)).toMatchObject({ n: '1', self: { n: '1', self: '[Circular]' }, logid: 'L' });
  });

  it('cuts a huge line and marks it, never silently', () => {
    const line = serializeRecord(toRecord('info', 'L', 'f', [{ big: 'x'.repeat(5000) }]), 1000);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed).toMatchObject({ truncated: true, logid: 'L', function: 'f' });
    expect(parsed['originalLength']).toBeGreaterThan(5000);
  });
});

describe('sinks', () => {
  it('batches JSON lines and flushes them in order', async () => {
    const writes: string[] = [];
    const logger = new Logger(createJsonSink((text) => writes.push(text)));
    logger.values('info', 'a', 'f', ['one']);
    logger.values('info', 'b', 'f', ['two']);
    expect(writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    const lines = writes
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(['one', 'two']);
  });

  it('never lets a failing sink break the caller', () => {
    const logger = new Logger({
      write: () => {
        throw new Error('disk full');
      },
    });
    expect(() => logger.values('info', 'a', 'f', ['x'])).not.toThrow();
    const memory = createMemorySink();
    new Logger(memory).line('warn', 'id', 'fn', 'msg', { extra: 1 });
    expect(memory.records[0]).toMatchObject({ level: 'warn', logid: 'id', function: 'fn', msg: 'msg', extra: 1 });
  });
});
