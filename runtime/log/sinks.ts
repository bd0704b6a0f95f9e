/**
 * Where log records go: JSON lines batched per turn of the event loop (to a function, or as
 * bytes to stdout), or an array in memory for tests. The records themselves are built in
 * record.ts.
 */
import { serializeRecord, type LineEncoder, type LogRecord, type LogSink } from './record.js';

/**
 * A sink writing JSON lines, batched and written once per turn of the event loop: one write per
 * request costs a syscall each on a pipe, and batching kept the GET benchmark several percent
 * closer to raw node:http. `flush()` writes what is pending at once. Given a `write` function,
 * it receives each batch as text (whole lines, at most 64 KiB unless one line is longer);
 * without one, the lines go to `process.stdout` as bytes. Either way the lines are encoded into
 * one reused buffer (`createStdoutSink`).
 * @example const sink = createJsonSink((text) => process.stdout.write(text))
 */
export function createJsonSink(
  write?: (text: string) => void,
): LogSink & { writeLine(line: string): void; flush(): void } {
  if (write === undefined) return createStdoutSink();
  const stream: LineStream = { write: (bytes) => write(bytes.toString('utf8')), writableLength: 0 };
  return createStdoutSink({ stream: () => stream });
}

/**
 * Flushes of the sinks holding lines, run when the process exits: a line logged just before
 * `process.exit()` is not lost. (Flushing every 10 ms instead of every turn measured 2% less
 * CPU per GET, but lines would then reach stdout after the response; tests and people
 * reading the log expect them together.)
 */
const exitFlushes = new Set<() => void>();
let exitHooked = false;

function flushOnExit(flush: () => void): void {
  exitFlushes.add(flush);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const pending of exitFlushes) pending();
    });
  }
}

/** Where a sink's bytes go: a writable stream, or anything with its `write` and `writableLength`. */
export interface LineStream {
  write(bytes: Buffer): unknown;
  /** Bytes the stream still holds; 0 (or absent) when it took the last write synchronously. */
  writableLength?: number;
}

/** Options of `createStdoutSink`. */
export interface StdoutSinkOptions {
  /** Where the bytes go, looked up at each write. @default () => process.stdout */
  stream?: () => LineStream;
  /**
   * Largest write, in bytes, always made of whole lines (a line too long for it goes alone).
   * 4096 (PIPE_BUF) makes each write to a pipe atomic, so the lines of several processes
   * sharing one pipe never interleave. @default 65536
   */
  batchBytes?: number;
}

/**
 * The JSON sink of a server: lines batched per turn of the event loop, each encoded into a
 * reused buffer as it is logged rather than kept as a string until the flush. Kept as a
 * pending string, the lines of a turn outlived the scavenges that ran before the flush, which
 * alone made V8 double the young generation twice within 4 s of the GET benchmark (peak RSS
 * 85 MB against raw node:http's 64 MB) and made each scavenge slower (0.2-0.4 ms instead of
 * 0.13-0.19 ms). The buffer is reused only when the stream took the bytes synchronously
 * (files, and pipes on Linux); otherwise the stream keeps it and a new one is made.
 * @example const logger = new Logger(createStdoutSink({ batchBytes: 4096 }))
 */
export function createStdoutSink(
  options: StdoutSinkOptions = {},
): LogSink & { writeLine(line: string): void; writeEncoded: NonNullable<LogSink['writeEncoded']>; flush(): void } {
  const stream = options.stream ?? (() => process.stdout);
  const size = options.batchBytes ?? 64 * 1024;
  let batch = Buffer.allocUnsafeSlow(size);
  let used = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    exitFlushes.delete(flush);
    if (used === 0) return;
    const out = stream();
    const bytes = batch.subarray(0, used);
    used = 0;
    out.write(bytes);
    if (out.writableLength !== 0) batch = Buffer.allocUnsafeSlow(size);
  };
  const schedule = (): void => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
      flushOnExit(flush);
    }
  };
  const writeLine = (line: string): void => {
    // A UTF-16 unit is at most 3 bytes of UTF-8; the newline takes one more.
    if (used + line.length * 3 + 1 > size) {
      flush();
      if (line.length * 3 + 1 > size) {
        // Maybe too long for a batch: measured exactly, and written alone when it is.
        const bytes = Buffer.from(line + '\n', 'utf8');
        if (bytes.length > size) {
          stream().write(bytes);
          return;
        }
        used = bytes.copy(batch, 0);
        return schedule();
      }
    }
    used += batch.write(line, used);
    batch[used++] = 0x0a;
    schedule();
  };
  const writeEncoded = <T>(maxBytes: number, encoder: LineEncoder<T>, value: T): boolean => {
    if (maxBytes + 1 > size) return false;
    if (used + maxBytes + 1 > size) flush();
    const end = encoder.encode(batch, used, value);
    if (end < 0) return false;
    used = end;
    batch[used++] = 0x0a;
    schedule();
    return true;
  };
  return {
    write: (record) => writeLine(serializeRecord(record)),
    writeLine,
    writeEncoded,
    flush,
  };
}

/** A sink that keeps records in memory, for tests and `cloudfn/testing`. */
export function createMemorySink(): LogSink & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { records, write: (record) => void records.push(record) };
}
