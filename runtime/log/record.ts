/**
 * Log records as the platform's logging rule says (docs/platform-contract.md#logging): every
 * line carries the logid and the function name, and a request's lines its `trace_id` and
 * `span_id` (docs/observability.md). An object (or the JSON text of an object) becomes one JSON
 * line with those fields added, overwriting same-named fields; any other values are formatted
 * as `console.log` would and carried in `msg`. The runtime's own lines use the same records.
 */
import type { LogLevel, LogRecord } from '../shapes.js';

// A builtin through process.getBuiltinModule rather than an ESM import, which builds a namespace
// from every export of the module: node:util, node:buffer and node:stream imported that way cost
// 0.7 ms of each cold start (node 20, after node:http), taken this way 0.1 ms.
const { format } = process.getBuiltinModule('node:util');

/** Where records go: JSON lines on stdout in start mode, pretty lines in dev, an array in tests. */
export interface LogSink {
  write(record: LogRecord): void;
  /**
   * Takes a record already serialized as one JSON line (without the newline): for callers
   * holding JSON text. The Logger itself writes records, and the request line through
   * `writeEncoded`.
   */
  writeLine?(line: string): void;
  /**
   * Takes a line as bytes the encoder writes straight into the sink's buffer, with room for
   * `maxBytes` (the newline is the sink's). False when the sink has no room for that many bytes
   * at once or the encoder gave up (`encode` returned -1): nothing was kept, and the caller
   * writes the line another way.
   */
  writeEncoded?<T>(maxBytes: number, encoder: LineEncoder<T>, value: T): boolean;
  flush?(): void;
}

/** Writes one line's bytes for `LogSink.writeEncoded`. */
export interface LineEncoder<T> {
  /** Writes `value` at `at`; returns the end, or -1 to write nothing. */
  encode(buffer: Buffer, at: number, value: T): number;
}

/** The trace ids a request's lines carry; the request's Exchange has them. */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

/** The runtime's own lines carry this function name. */
export const RUNTIME_FUNCTION = 'cloudfn';

/**
 * True for an object whose fields are its content: a plain object, an object without a
 * prototype, and one whose prototype has none either (the null-prototype maps cloudfn hands
 * out: params, query, cookies, node's headers; see body/null-object.ts). Arrays and class
 * instances (Error, Date, Buffer, Map) are not: they are printed as `console.log` would.
 */
function isFieldsObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  // Object.prototype itself has a null prototype, so this covers plain objects too.
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Deepest nesting rewritten for `format`, one past util.inspect's default depth of 2. */
const PLAIN_DEPTH = 3;

/**
 * `value` with every null-prototype object inside it copied into a plain object, so that
 * `format` prints `{ x: '1' }` for it as for a plain object, not
 * `NullObjectConstructor <[Object: null prototype] {}> { x: '1' }`. Only objects that need it
 * are copied; a cycle is left to `format`, which marks it.
 */
function plainForFormat(value: unknown, depth: number, seen: Set<object>): unknown {
  if (typeof value !== 'object' || value === null || depth > PLAIN_DEPTH || seen.has(value)) return value;
  const isArray = Array.isArray(value);
  const proto = Object.getPrototypeOf(value) as object | null;
  if (!isArray && proto !== Object.prototype && !isFieldsObject(value)) return value;
  seen.add(value);
  let copy: Record<string, unknown> | unknown[] | undefined =
    isArray || proto === Object.prototype ? undefined : { ...(value as Record<string, unknown>) };
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const inner = source[key];
    const plain = plainForFormat(inner, depth + 1, seen);
    if (plain !== inner) {
      copy ??= isArray ? [...(value as unknown[])] : { ...source };
      (copy as Record<string, unknown>)[key] = plain;
    }
  }
  seen.delete(value);
  return copy ?? value;
}

/** `format(...values)` with null-prototype objects printed as plain objects. */
function formatValues(values: readonly unknown[]): string {
  let args: unknown[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value !== 'object' || value === null) continue;
    const plain = plainForFormat(value, 0, new Set());
    if (plain !== value) {
      args ??= [...values];
      args[i] = plain;
    }
  }
  return format(...(args ?? values));
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
    if (isFieldsObject(value))
      return trace === undefined
        ? { level, time, ...value, logid, function: fn }
        : { level, time, ...value, logid, trace_id: trace.traceId, span_id: trace.spanId, function: fn };
  }
  const msg = formatValues(values);
  return trace === undefined
    ? { level, time, logid, function: fn, msg }
    : { level, time, logid, trace_id: trace.traceId, span_id: trace.spanId, function: fn, msg };
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

/** Records are declared with the other shapes the console page reads. */
export type { LogLevel, LogRecord };
