/**
 * The request line, `GET /hello 200 0.3 ms 17 B` with the same facts as JSON fields: its facts,
 * its record form, and its text form built by hand for sinks that take JSON text, reusing the
 * quoted pieces while consecutive requests repeat them.
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
  /** Both ids as one string, the trace id's 32 digits then the span id's 16, in place of the two. */
  traceSpan?: string | undefined;
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
  if (facts.traceSpan !== undefined) {
    record['trace_id'] = facts.traceSpan.slice(0, 32);
    record['span_id'] = facts.traceSpan.slice(32);
  } else if (facts.traceId !== undefined) {
    record['trace_id'] = facts.traceId;
    record['span_id'] = facts.spanId;
  }
  record['function'] = facts.fn;
  record['msg'] = `${method} ${path} ${status} ${durationMs} ms ${bytes} B`;
  return record as LogRecord;
}

/**
 * Builds the request line as JSON text, byte for byte what `serializeRecord(requestRecord(facts))`
 * gives. One per Logger: it keeps the texts quoted for the last line.
 */
export class RequestLineText {
  #time = -1;
  #timeText = '';
  #level = '';
  #method = '';
  #path = '';
  #trigger = '';
  #fn = '';
  /** `{"level":"info","time":` */
  #head = '';
  /** `,"method":"GET","path":"/hello","status":` */
  #request = '';
  /** `,"trigger":"online","logid":` */
  #triggerLogid = '';
  /** `,"trigger":"online"` */
  #triggerOnly = '';
  /** `,"function":"hello","msg":"GET /hello ` */
  #functionMsg = '';

  format(facts: RequestLine): string {
    const { level, method, path, trigger, fn, status, bytes, error } = facts;
    // method is an HTTP token and trigger one of three words: neither needs escaping. JSON
    // escapes character by character, so msg is the escaped path between plain ASCII parts.
    // The text around the numbers is kept, in four pieces, while consecutive requests repeat
    // the level, method, path, trigger and function, and the time while the millisecond
    // does; the duration is printed once. Fewer pieces also make the line cheaper to encode:
    // 0.40 µs per line into the stdout sink, from 0.55 with every piece joined per line and
    // 1.3-2.2 µs with a record and JSON.stringify (node 20, 1M lines).
    const now = Date.now();
    if (now !== this.#time) {
      this.#time = now;
      this.#timeText = String(now);
    }
    if (
      level !== this.#level ||
      method !== this.#method ||
      path !== this.#path ||
      trigger !== this.#trigger ||
      fn !== this.#fn
    ) {
      this.#requote(level, method, path, trigger, fn);
    }
    const ms = String(facts.durationMs);
    return (
      this.#head +
      this.#timeText +
      this.#request +
      status +
      ',"durationMs":' +
      ms +
      ',"bytes":' +
      bytes +
      (error === undefined ? this.#triggerLogid : `${this.#triggerOnly},"error":${JSON.stringify(error)},"logid":`) +
      JSON.stringify(facts.logid) +
      // Both ids are lower-case hex (checked when read, made here, or an SDK's): no escaping.
      (facts.traceSpan !== undefined
        ? `,"trace_id":"${facts.traceSpan.slice(0, 32)}","span_id":"${facts.traceSpan.slice(32)}"`
        : facts.traceId === undefined
          ? ''
          : `,"trace_id":"${facts.traceId}","span_id":"${facts.spanId}"`) +
      this.#functionMsg +
      status +
      ' ' +
      ms +
      ' ms ' +
      bytes +
      ' B"}'
    );
  }

  #requote(level: string, method: string, path: string, trigger: string, fn: string): void {
    const pathJson = JSON.stringify(path);
    this.#level = level;
    this.#method = method;
    this.#path = path;
    this.#trigger = trigger;
    this.#fn = fn;
    this.#head = `{"level":"${level}","time":`;
    this.#request = `,"method":"${method}","path":${pathJson},"status":`;
    this.#triggerOnly = `,"trigger":"${trigger}"`;
    this.#triggerLogid = `${this.#triggerOnly},"logid":`;
    this.#functionMsg = `,"function":${JSON.stringify(fn)},"msg":"${method} ${pathJson.slice(1, -1)} `;
  }
}
