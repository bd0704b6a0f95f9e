/**
 * Logging as document 3's "Logging rule" says: every line carries the logid and the function
 * name. An object (or the JSON text of an object) becomes one JSON line with `logid` and
 * `function` added, overwriting same-named fields; any other values are formatted as
 * `console.log` would and carried in `msg`. The runtime's own lines use the same records.
 */
import { format } from 'node:util';

/** The five methods of the service, plus `log`; kept in each line as `level` for filtering. */
export type LogLevel = 'log' | 'debug' | 'info' | 'warn' | 'error';

/** One structured log line. */
export interface LogRecord {
  level: LogLevel;
  logid: string;
  function: string;
  time: number;
  msg?: string;
  [field: string]: unknown;
}

/** Where records go: JSON lines on stdout in start mode, pretty lines in dev, an array in tests. */
export interface LogSink {
  write(record: LogRecord): void;
  /**
   * Takes a record already serialized as one JSON line (without the newline). Sinks that write
   * JSON text offer it so the request line can be built as text, without a record object.
   */
  writeLine?(line: string): void;
  flush?(): void;
}

/** The runtime's own lines carry this function name. */
export const RUNTIME_FUNCTION = 'cloudfn';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Turns what a handler printed into a record.
 * @example toRecord('info', 'abc', 'hello', [{ user: 1 }]) // { level: 'info', user: 1, logid: 'abc', function: 'hello', time }
 */
export function toRecord(level: LogLevel, logid: string, fn: string, values: readonly unknown[]): LogRecord {
  const time = Date.now();
  if (values.length === 1) {
    let value = values[0];
    if (typeof value === 'string' && value.charCodeAt(0) === 123 /* { */) {
      try {
        value = JSON.parse(value) as unknown;
      } catch {
        // Not JSON after all: printed as text below.
      }
    }
    if (isPlainObject(value)) return { level, time, ...value, logid, function: fn };
  }
  return { level, time, logid, function: fn, msg: format(...values) };
}

/** Largest JSON line written; a longer record is replaced by a marked, shortened one. */
export const MAX_LINE_LENGTH = 1024 * 1024;

function safeReplacer(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

/**
 * Serializes a record as one JSON line that never throws: circular references become
 * `"[Circular]"`, BigInts strings, and a line over `maxLength` is cut and marked `truncated`.
 */
export function serializeRecord(record: LogRecord, maxLength = MAX_LINE_LENGTH): string {
  let line: string;
  try {
    line = JSON.stringify(record);
  } catch {
    line = JSON.stringify(record, safeReplacer());
  }
  if (line.length <= maxLength) return line;
  return JSON.stringify({
    level: record.level,
    time: record.time,
    logid: record.logid,
    function: record.function,
    msg: line.slice(0, maxLength),
    truncated: true,
    originalLength: line.length,
  });
}

/** The last texts quoted into a request line, reused while consecutive requests repeat them. */
const quoted = {
  time: -1,
  timeText: '',
  level: '',
  method: '',
  path: '',
  trigger: '',
  fn: '',
  /** `{"level":"info","time":` */
  head: '',
  /** `,"method":"GET","path":"/hello","status":` */
  request: '',
  /** `,"trigger":"online","logid":` */
  trigger_: '',
  /** `,"trigger":"online"` */
  triggerOnly: '',
  /** `,"function":"hello","msg":"GET /hello ` */
  functionMsg: '',
};

function requote(level: string, method: string, path: string, trigger: string, fn: string): void {
  const pathJson = JSON.stringify(path);
  quoted.level = level;
  quoted.method = method;
  quoted.path = path;
  quoted.trigger = trigger;
  quoted.fn = fn;
  quoted.head = `{"level":"${level}","time":`;
  quoted.request = `,"method":"${method}","path":${pathJson},"status":`;
  quoted.triggerOnly = `,"trigger":"${trigger}"`;
  quoted.trigger_ = `${quoted.triggerOnly},"logid":`;
  quoted.functionMsg = `,"function":${JSON.stringify(fn)},"msg":"${method} ${pathJson.slice(1, -1)} `;
}

/**
 * The logger shared by the runtime and every service: one sink, records built by `toRecord`.
 * A sink that throws never breaks a request: the failure is reported on stderr once.
 */
export class Logger {
  readonly sink: LogSink;
  #sinkFailed = false;
  constructor(sink: LogSink) {
    this.sink = sink;
  }
  /** Writes what a handler printed. */
  values(level: LogLevel, logid: string, fn: string, values: readonly unknown[]): void {
    this.write(toRecord(level, logid, fn, values));
  }
  /** Writes a runtime line with extra fields. */
  line(level: LogLevel, logid: string, fn: string, msg: string, fields?: Record<string, unknown>): void {
    this.write({ level, time: Date.now(), ...fields, logid, function: fn, msg });
  }
  /**
   * Writes the request line, `GET /hello 200 0.3 ms 17 B`, with the same facts as fields. The
   * record is `{ level, time, method, path, status, durationMs, bytes, trigger, error?, logid,
   * function, msg }`. For a sink that takes text lines the JSON is built by hand, byte for byte
   * what serializeRecord gives (test/bench/hot-path.test.ts compares them).
   */
  request(
    level: LogLevel,
    logid: string,
    fn: string,
    method: string,
    path: string,
    status: number,
    durationMs: number,
    bytes: number,
    trigger: string,
    error: string | undefined,
  ): void {
    const sink = this.sink;
    if (sink.writeLine !== undefined) {
      // method is an HTTP token and trigger one of three words: neither needs escaping. JSON
      // escapes character by character, so msg is the escaped path between plain ASCII parts.
      // The text around the numbers is kept, in four pieces, while consecutive requests repeat
      // the level, method, path, trigger and function, and the time while the millisecond
      // does; the duration is printed once. Fewer pieces also make the line cheaper to encode:
      // 0.40 µs per line into the stdout sink, from 0.55 with every piece joined per line and
      // 1.3-2.2 µs with a record and JSON.stringify (node 20, 1M lines).
      const now = Date.now();
      if (now !== quoted.time) {
        quoted.time = now;
        quoted.timeText = String(now);
      }
      if (level !== quoted.level || method !== quoted.method || path !== quoted.path || trigger !== quoted.trigger || fn !== quoted.fn) {
        requote(level, method, path, trigger, fn);
      }
      const ms = String(durationMs);
      const line =
        quoted.head + quoted.timeText + quoted.request + status + ',"durationMs":' + ms + ',"bytes":' + bytes +
        (error === undefined ? quoted.trigger_ : `${quoted.triggerOnly},"error":${JSON.stringify(error)},"logid":`) +
        JSON.stringify(logid) + quoted.functionMsg + status + ' ' + ms + ' ms ' + bytes + ' B"}';
      if (line.length <= MAX_LINE_LENGTH) {
        try {
          sink.writeLine(line);
        } catch (failure) {
          this.#reportSinkFailure(failure);
        }
        return;
      }
    }
    // Built in steps to keep the key order of the text line: error, when present, before logid.
    const record: Record<string, unknown> = { level, time: Date.now(), method, path, status, durationMs, bytes, trigger };
    if (error !== undefined) record['error'] = error;
    record['logid'] = logid;
    record['function'] = fn;
    record['msg'] = `${method} ${path} ${status} ${durationMs} ms ${bytes} B`;
    this.write(record as LogRecord);
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
