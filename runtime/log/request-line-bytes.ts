/**
 * The request line encoded straight into a sink's byte buffer: the same bytes as the text of
 * request-line.ts, with no JavaScript string made per line. The quoted pieces are kept as
 * bytes while consecutive requests repeat them; the numbers, the logid and the trace ids are
 * written digit by digit. A line it cannot write this way (an error field, a logid with a
 * character JSON would escape, a duration that is not in tenths) is left to the record form.
 */
import type { LineEncoder } from './record.js';
import type { RequestLine } from './request-line.js';

const QUOTE = 0x22;
const DOT = 0x2e;
const SPACE = 0x20;
/** The bytes of `,"trace_id":"`, `","span_id":"` and `"`. */
const TRACE_OPEN = Buffer.from(',"trace_id":"', 'latin1');
const SPAN_OPEN = Buffer.from('","span_id":"', 'latin1');
const MS = Buffer.from(' ms ', 'latin1');
const TAIL = Buffer.from(' B"}', 'latin1');
const DURATION = Buffer.from(',"durationMs":', 'latin1');
const BYTES = Buffer.from(',"bytes":', 'latin1');

/** Characters of a logid that JSON writes as they are: the safe logids of logid.ts, `[\w.:-]`. */
const PLAIN = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-') PLAIN[c.charCodeAt(0)] = 1;

/** Writes the decimal digits of a whole number from 0 to 2^31 - 1 at `at`; returns the end. */
function putInt(buffer: Buffer, at: number, n: number): number {
  // 32-bit integer division: several times quicker than Math.floor on doubles.
  let digits = 1;
  for (let m = n; m >= 10; m = (m / 10) | 0) digits++;
  let end = at + digits;
  for (let m = n; end > at; m = (m / 10) | 0) buffer[--end] = 48 + (m % 10);
  return at + digits;
}

/** Copies an ASCII string byte by byte (short ones: quicker than a call into `write`). */
function putAscii(buffer: Buffer, at: number, text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) buffer[at + i] = text.charCodeAt(i);
  return at + n;
}

/** Writes a duration of `tenths` tenths of a millisecond as `String(tenths / 10)` does. */
function putTenths(buffer: Buffer, at: number, tenths: number): number {
  const end = putInt(buffer, at, Math.floor(tenths / 10));
  const digit = tenths % 10;
  if (digit === 0) return end;
  buffer[end] = DOT;
  buffer[end + 1] = 48 + digit;
  return end + 2;
}

function put(buffer: Buffer, at: number, piece: Buffer): number {
  buffer.set(piece, at);
  return at + piece.length;
}

/**
 * The request line's byte form, one per Logger. It replaced a text form that built about twenty
 * strings per line, joined them, and encoded the joined string into the batch (710 → 380 ns per
 * line, docs/performance.md#what-was-tuned).
 */
export class RequestLineBytes implements LineEncoder<RequestLine> {
  #level = '';
  #method = '';
  #path = '';
  #trigger = '';
  #fn = '';
  #time = -1;
  /** `{"level":"info","time":` */
  #head = Buffer.alloc(0);
  /** The time's digits while the millisecond repeats. */
  #timeBytes = Buffer.alloc(16);
  #timeLength = 0;
  /** `,"method":"GET","path":"/hello","status":` */
  #request = Buffer.alloc(0);
  /** `,"trigger":"online","logid":"` */
  #triggerLogid = Buffer.alloc(0);
  /** `,"function":"hello","msg":"GET /hello ` */
  #functionMsg = Buffer.alloc(0);

  /**
   * The most bytes `encode` may write for these facts (the sink makes room for them first), or
   * -1 when this line is for the text form.
   */
  bound(facts: RequestLine): number {
    if (facts.error !== undefined || facts.logid.length > 128) return -1;
    const { level, method, path, trigger, fn } = facts;
    if (
      level !== this.#level ||
      method !== this.#method ||
      path !== this.#path ||
      trigger !== this.#trigger ||
      fn !== this.#fn
    ) {
      this.#requote(level, method, path, trigger, fn);
    }
    // The pieces, the logid, the ids and the trace's keys, and the numbers with room to spare.
    return this.#head.length + this.#request.length + this.#triggerLogid.length + this.#functionMsg.length + 128 + 200;
  }

  /** Writes the line at `at` (after `bound` gave room); returns its end, or -1 (nothing kept). */
  encode(buffer: Buffer, at: number, facts: RequestLine): number {
    const { status, bytes, durationMs, logid } = facts;
    const tenths = Math.round(durationMs * 10);
    // Numbers within 32 bits, a duration in tenths (what finish.ts gives): the rest goes as a record.
    if (
      tenths / 10 !== durationMs ||
      !(tenths >= 0 && tenths < 2147483648 && bytes >= 0 && bytes < 2147483648 && status >= 0 && status < 1000) ||
      bytes % 1 !== 0 ||
      status % 1 !== 0
    )
      return -1;
    const now = Date.now();
    if (now !== this.#time) {
      this.#time = now;
      this.#timeLength = this.#timeBytes.write(String(now), 0, 'latin1');
    }
    let p = put(buffer, at, this.#head);
    const time = this.#timeBytes;
    for (let i = 0; i < this.#timeLength; i++) buffer[p++] = time[i]!;
    p = put(buffer, p, this.#request);
    p = putInt(buffer, p, status);
    p = put(buffer, p, DURATION);
    p = putTenths(buffer, p, tenths);
    p = put(buffer, p, BYTES);
    p = putInt(buffer, p, bytes);
    p = put(buffer, p, this.#triggerLogid);
    for (let i = 0; i < logid.length; i++) {
      const c = logid.charCodeAt(i);
      if (c >= 128 || PLAIN[c] === 0) return -1;
      buffer[p++] = c;
    }
    buffer[p++] = QUOTE;
    const { traceId, spanId } = facts;
    if (traceId !== undefined) {
      // Both ids are lower-case hex (checked when read, made here, or an SDK's): no escaping.
      p = put(buffer, p, TRACE_OPEN);
      p = putAscii(buffer, p, traceId);
      p = put(buffer, p, SPAN_OPEN);
      p = putAscii(buffer, p, spanId ?? '');
      buffer[p++] = QUOTE;
    }
    p = put(buffer, p, this.#functionMsg);
    p = putInt(buffer, p, status);
    buffer[p++] = SPACE;
    p = putTenths(buffer, p, tenths);
    p = put(buffer, p, MS);
    p = putInt(buffer, p, bytes);
    return put(buffer, p, TAIL);
  }

  #requote(level: string, method: string, path: string, trigger: string, fn: string): void {
    const pathJson = JSON.stringify(path);
    this.#level = level;
    this.#method = method;
    this.#path = path;
    this.#trigger = trigger;
    this.#fn = fn;
    this.#head = Buffer.from(`{"level":"${level}","time":`, 'utf8');
    this.#request = Buffer.from(`,"method":"${method}","path":${pathJson},"status":`, 'utf8');
    this.#triggerLogid = Buffer.from(`,"trigger":"${trigger}","logid":"`, 'utf8');
    this.#functionMsg = Buffer.from(
      `,"function":${JSON.stringify(fn)},"msg":"${method} ${pathJson.slice(1, -1)} `,
      'utf8',
    );
  }
}
