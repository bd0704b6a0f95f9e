/**
 * The Logger: what the runtime and every service write through. It owns the sink, the
 * per-logger cache of the request line, and the rule that a failing sink never breaks a request.
 */
import { toRecord, type LogLevel, type LogRecord, type LogSink, type TraceIds } from './record.js';
import { requestRecord, type RequestLine } from './request-line.js';
import type { RequestLineBytes } from './request-line-bytes.js';

/**
 * The request line's byte form (request-line-bytes.ts), imported when the first logger with a
 * byte sink is made, so a bundle does not read it at start (2.2 kB minified). Until it is
 * loaded, request lines go as records: the same bytes, made more slowly.
 */
let lineBytes: typeof RequestLineBytes | undefined;
let lineBytesLoading: Promise<void> | undefined;

/** Starts loading the request line's byte form (once); resolves when it can be used. */
export function loadRequestLineBytes(): Promise<void> {
  lineBytesLoading ??= import('./request-line-bytes.js').then((module) => {
    lineBytes = module.RequestLineBytes;
  });
  return lineBytesLoading;
}

/**
 * The logger shared by the runtime and every service: one sink, records built by `toRecord`
 * (record.ts), the request line as text by request-line.ts. A sink that throws never breaks a request: the failure is reported on stderr once.
 */
export class Logger {
  readonly sink: LogSink;
  #sinkFailed = false;
  /** The request line as bytes, for sinks that take them; per logger so two apps never share its pieces. */
  #bytes: RequestLineBytes | undefined = undefined;
  constructor(sink: LogSink) {
    this.sink = sink;
    // A chunk that fails to load leaves the record form, which writes the same bytes.
    if (sink.writeEncoded !== undefined) loadRequestLineBytes().catch(() => undefined);
  }
  /** Writes what a handler printed; `trace` adds the request's `trace_id` and `span_id`. */
  values(level: LogLevel, logid: string, fn: string, values: readonly unknown[], trace?: TraceIds): void {
    this.write(toRecord(level, logid, fn, values, trace));
  }
  /** Writes a runtime line with extra fields; `trace` adds the request's `trace_id` and `span_id`. */
  line(
    level: LogLevel,
    logid: string,
    fn: string,
    msg: string,
    fields?: Record<string, unknown>,
    trace?: TraceIds,
  ): void {
    this.write(
      trace === undefined
        ? { level, time: Date.now(), ...fields, logid, function: fn, msg }
        : {
            level,
            time: Date.now(),
            ...fields,
            logid,
            trace_id: trace.traceId,
            span_id: trace.spanId,
            function: fn,
            msg,
          },
    );
  }
  /**
   * Writes the request line, `GET /hello 200 0.3 ms 17 B`, with the same facts as fields. The
   * record is `{ level, time, method, path, status, durationMs, bytes, trigger, error?, logid,
   * trace_id?, span_id?, function, msg }`. For a sink that takes bytes the JSON is encoded by
   * request-line-bytes.ts, byte for byte what serializeRecord gives
   * (test/bench/request-line-bytes.test.ts compares them).
   */
  request(facts: RequestLine): void {
    const sink = this.sink;
    const bytes = sink.writeEncoded === undefined ? undefined : (this.#bytes ?? this.#makeBytes());
    if (bytes !== undefined) {
      // Straight into the sink's bytes (request-line-bytes.ts); what it leaves goes as a record.
      const bound = bytes.bound(facts);
      try {
        if (bound >= 0 && sink.writeEncoded!(bound, bytes, facts)) return;
      } catch (failure) {
        this.#reportSinkFailure(failure);
        return;
      }
    }
    this.write(requestRecord(facts));
  }
  #makeBytes(): RequestLineBytes | undefined {
    if (lineBytes !== undefined) this.#bytes = new lineBytes();
    return this.#bytes;
  }
  write(record: LogRecord): void {
    try {
      this.sink.write(record);
    } catch (error) {
      this.#reportSinkFailure(error);
    }
  }
  #reportSinkFailure(error: unknown): void {
    if (!this.#sinkFailed) {
      this.#sinkFailed = true;
      process.stderr.write(`cloudfn: the log sink failed: ${String(error)}\n`);
    }
  }
  flush(): void {
    this.sink.flush?.();
  }
}
