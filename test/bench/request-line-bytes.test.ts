/**
 * The request line written as bytes straight into the stdout sink's buffer
 * (runtime/log/request-line-bytes.ts) must be byte for byte the serialized record, for every
 * line it takes, and leave to the record form every line it cannot write exactly.
 */
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { Logger, loadRequestLineBytes } from '../../runtime/log/logger.js';
import { serializeRecord, type LogRecord } from '../../runtime/log/record.js';
import { requestRecord, type RequestLine } from '../../runtime/log/request-line.js';
import { RequestLineBytes } from '../../runtime/log/request-line-bytes.js';
import { createStdoutSink } from '../../runtime/log/sinks.js';

function stdoutLines(facts: readonly RequestLine[], batchBytes?: number): string[] {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const sink = createStdoutSink({ stream: () => stream, ...(batchBytes === undefined ? {} : { batchBytes }) });
  const logger = new Logger(sink);
  for (const f of facts) logger.request(f);
  sink.flush();
  return Buffer.concat(chunks).toString('utf8').split('\n').slice(0, -1);
}

/** What serializeRecord writes for these facts, at the time the line carries. */
function expected(f: RequestLine, line: string): string {
  const record = requestRecord(f) as Record<string, unknown>;
  record['time'] = (JSON.parse(line) as LogRecord).time;
  return serializeRecord(record as LogRecord);
}

/** The line of a plain GET, without trace ids. */
const COMMON: RequestLine = {
  level: 'info',
  logid: '021700000000000000000000',
  fn: 'hello',
  method: 'GET',
  path: '/hello',
  status: 200,
  durationMs: 0.3,
  bytes: 17,
  trigger: 'online',
};

/** A small seeded generator: the same cases every run. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

// First in the file: the byte form is not loaded before the first logger asks for it.
describe('the request line before its byte form has loaded', () => {
  it('goes as a record, the same bytes, then as bytes once loaded', async () => {
    const chunks: Buffer[] = [];
    const stream = { write: (bytes: Buffer) => chunks.push(Buffer.from(bytes)), writableLength: 0 };
    const sink = createStdoutSink({ stream: () => stream });
    let encoded = 0;
    const counted = {
      ...sink,
      writeEncoded: ((...args) => (encoded++, sink.writeEncoded(...args))) as typeof sink.writeEncoded,
    };
    const logger = new Logger(counted);
    const facts: RequestLine = { ...COMMON, traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    logger.request(facts);
    expect(encoded).toBe(0);
    await loadRequestLineBytes();
    logger.request(facts);
    expect(encoded).toBe(1);
    sink.flush();
    const [before, after] = Buffer.concat(chunks).toString('utf8').split('\n');
    expect(before).toBe(expected(facts, before!));
    expect(after).toBe(expected(facts, after!));
  });
});

describe('the request line as bytes', () => {
  // Loaded after start in the runtime; loaded first here, so every line below can take it.
  beforeAll(() => loadRequestLineBytes());
  const next = random(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const facts: RequestLine[] = [];
  for (let i = 0; i < 2000; i++) {
    facts.push({
      level: pick(['info', 'warn', 'error'] as const),
      logid: pick(['021700000000000000000000', 'L1', 'a.b:c-d_e', 'has space', 'quo"te', 'é', 'x'.repeat(129)]),
      fn: pick(['hello', 'videos/list', 'we"ird\\name', '你好', '']),
      method: pick(['GET', 'POST', 'OPTIONS']),
      path: pick(['/hello', '/', '/a"b\\c/%E4%BD%A0\u00e9', '/videos/list/x', '/\u0001ctl']),
      status: pick([200, 204, 404, 413, 500, 503]),
      durationMs: pick([0, 0.1, 0.3, 1, 9.9, 10, 12.5, 123456.7, 0.25, 1e-7, 2.05, Math.round(next() * 1e6) / 10]),
      bytes: pick([0, 9, 10, 17, 99, 100, 1_048_576, 2 ** 31 - 1, 2 ** 31, 2 ** 40]),
      trigger: pick(['online', 'ide_debug', 'console_debug']),
      error: pick([undefined, undefined, 'CLOUDFN_X: a "quoted" message\n']),
      ...pick([{ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }, {}]),
    });
  }

  it('is byte for byte the serialized record, for lines it takes and lines it leaves', () => {
    const lines = stdoutLines(facts);
    expect(lines).toHaveLength(facts.length);
    lines.forEach((line, i) => expect(line).toBe(expected(facts[i]!, line)));
  });

  it('is the same across batch boundaries of a small batch', () => {
    const lines = stdoutLines(facts.slice(0, 300), 4096);
    lines.forEach((line, i) => expect(line).toBe(expected(facts[i]!, line)));
  });

  it('takes the common line and leaves what it cannot write exactly', () => {
    const bytes = new RequestLineBytes();
    const buffer = Buffer.alloc(4096);
    const common = COMMON;
    expect(bytes.bound(common)).toBeGreaterThan(0);
    expect(bytes.encode(buffer, 0, common)).toBeGreaterThan(0);
    expect(bytes.bound({ ...common, error: 'E: x' })).toBe(-1);
    for (const odd of [{ logid: 'a b' }, { durationMs: 0.25 }, { bytes: -1 }, { bytes: 1.5 }, { bytes: 2 ** 31 }]) {
      const f = { ...common, ...odd };
      expect(bytes.bound(f) >= 0 ? bytes.encode(buffer, 0, f) : -1).toBe(-1);
    }
  });
});
