/**
 * The Logger: what the runtime and every service write through. It owns the sink, the
 * per-logger cache of the request line, and the rule that a failing sink never breaks a request.
 */
import { MAX_LINE_LENGTH, toRecord, type LogLevel, type LogRecord, type LogSink, type TraceIds } from './record.js';
import { RequestLineText, requestRecord, type RequestLine } from './request-line.js';
import { RequestLineBytes } from './request-line-bytes.js';

/**
 * The logger shared by the runtime and every service: one sink, records built by `toRecord`
 * (record.ts), the request line as text by request-line.ts. A sink that throws never breaks a request: the failure is reported on stderr once.
 */
export class Logger {
  readonly sink: LogSink;
  #sinkFailed = false;
  /** The texts of the last request line, per logger so two apps never share them. */
  readonly #lines = new RequestLineText();
  /** The same line as bytes, for sinks that take them. */
  readonly #bytes = new RequestLineBytes();
  constructor(sink: LogSink) {
    this.sink = sink;
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
   * trace_id?, span_id?, function, msg }`. For a sink that takes text lines the JSON is built as text by
   * request-line.ts, byte for byte what serializeRecord gives (test/bench/hot-path.test.ts
   * compares them).
   */
  request(facts: RequestLine): void {
    const sink = this.sink;
    if (sink.writeEncoded !== undefined) {
      // Straight into the sink's bytes (request-line-bytes.ts); the text form for what it leaves.
      const bound = this.#bytes.bound(facts);
      try {
        if (bound >= 0 && sink.writeEncoded(bound, this.#bytes, facts)) return;
      } catch (failure) {
        this.#reportSinkFailure(failure);
        return;
      }
    }
    if (sink.writeLine !== undefined) {
      const line = this.#lines.format(facts);
      if (line.length <= MAX_LINE_LENGTH) {
        try {
          sink.writeLine(line);
        } catch (failure) {
          this.#reportSinkFailure(failure);
        }
        return;
      }
    }
    this.write(requestRecord(facts));
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
