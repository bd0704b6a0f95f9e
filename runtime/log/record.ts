/**
 * Log records as the platform's logging rule says (docs/platform-contract.md#logging): every
 * line carries the logid and the function name, and a request's lines its `trace_id` and
 * `span_id` (docs/observability.md). An object (or the JSON text of an object) becomes one JSON
 * line with those fields added, overwriting same-named fields; any other values are formatted
 * as `console.log` would and carried in `msg`. The runtime's own lines use the same records.
 */

// A builtin through process.getBuiltinModule rather than an ESM import, which builds a namespace
// from every export of the module: node:util, node:buffer and node:stream imported that way cost
// 0.7 ms of each cold start (node 20, after node:http), taken this way 0.1 ms.
const { format } = process.getBuiltinModule('node:util');

/** The five methods of the service, plus `log`; kept in each line as `level` for filtering. */
export type LogLevel = 'log' | 'debug' | 'info' | 'warn' | 'error';

/** One structured log line. */
export interface LogRecord {
  level: LogLevel;
  logid: string;
  /** The request's trace id, on the lines of a request. */
  trace_id?: string;
  /** The request's span id, on the lines of a request. */
  span_id?: string;
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

/** The trace ids a request's lines carry; the request's Exchange has them. */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

/** The runtime's own lines carry this function name. */
export const RUNTIME_FUNCTION = 'cloudfn';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Turns what a handler printed into a record; with `trace`, the record carries `trace_id` and
 * `span_id` after `logid`.
 * @example toRecord('info', 'abc', 'hello', [{ user: 1 }]) // { level: 'info', user: 1, logid: 'abc', function: 'hello', time }
 */
export function toRecord(
  level: LogLevel,
  logid: string,
  fn: string,
  values: readonly unknown[],
  trace?: TraceIds,
): LogRecord {
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
    if (isPlainObject(value))
      return trace === undefined
        ? { level, time, ...value, logid, function: fn }
        : { level, time, ...value, logid, trace_id: trace.traceId, span_id: trace.spanId, function: fn };
  }
  return trace === undefined
    ? { level, time, logid, function: fn, msg: format(...values) }
    : { level, time, logid, trace_id: trace.traceId, span_id: trace.spanId, function: fn, msg: format(...values) };
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
    trace_id: record.trace_id,
    span_id: record.span_id,
    function: record.function,
    msg: line.slice(0, maxLength),
    truncated: true,
    originalLength: line.length,
  });
}
