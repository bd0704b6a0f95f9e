/**
 * The request line, `GET /hello 200 0.3 ms 17 B` with the same facts as JSON fields: its facts
 * and its record form. Sinks that take bytes get it encoded by request-line-bytes.ts instead.
 */
import type { LogLevel, LogRecord } from './record.js';

/** The facts of one request line. */
export interface RequestLine {
  level: LogLevel;
  logid: string;
  /** The function's name, '' before routing. */
  fn: string;
  method: string;
  /** The path as sent, without the query. */
  path: string;
  status: number;
  durationMs: number;
  /** Body bytes sent. */
  bytes: number;
  trigger: string;
  /** `CODE: message` of a runtime error answer. */
  error?: string | undefined;
  /** The request's trace id, 32 lower-case hex digits. */
  traceId?: string | undefined;
  /** The request's span id, 16 lower-case hex digits (given with traceId). */
  spanId?: string | undefined;
}

/**
 * The request line as a record: `{ level, time, method, path, status, durationMs, bytes,
 * trigger, error?, logid, trace_id?, span_id?, function, msg }`, in that key order.
 */
export function requestRecord(facts: RequestLine): LogRecord {
  const { level, method, path, status, durationMs, bytes, trigger, error } = facts;
  // Built in steps to keep the key order of the text line: error, when present, before logid.
  const record: Record<string, unknown> = { level, time: Date.now(), method, path, status, durationMs, bytes, trigger };
  if (error !== undefined) record['error'] = error;
  record['logid'] = facts.logid;
  if (facts.traceId !== undefined) {
    record['trace_id'] = facts.traceId;
    record['span_id'] = facts.spanId;
  }
  record['function'] = facts.fn;
  record['msg'] = `${method} ${path} ${status} ${durationMs} ms ${bytes} B`;
  return record as LogRecord;
}
