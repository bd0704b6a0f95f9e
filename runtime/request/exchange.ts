/**
 * The state of one request while it runs: what was asked, what the handler set, and the host
 * it runs in. Plain data: the path that moves it (handle.ts, response.ts) decides; the one
 * rule kept here is that a response is claimed once (`claim()`), so a late write after a
 * timeout or a disconnect is ignored rather than sent to another request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyParser } from '../body/parse-body.js';
import type { Logger } from '../log/logger.js';
import type { LogLevel } from '../log/record.js';
import type { RuntimeOptions } from '../options.js';
import { ids } from '../trace/ids.js';
import type { ServerTelemetry } from '../trace/otel-bridge.js';
import { parseTraceparent } from '../trace/traceparent.js';
import type { LoadedFunction, Trigger } from '../types.js';
import type { ConnectionLimit } from '../admission/connection-limit.js';
import type { MemoryBudget } from '../admission/memory-budget.js';
import type { Overload } from '../admission/overload.js';
import type { Router } from './router.js';
import { monotonicMs } from './clock.js';

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

export type HeaderValue = string | string[];

/**
 * What a request needs from the server it runs in. The `App` implements it; so can a test
 * that builds an exchange by hand (`cloudfn/testing`'s fake service).
 */
export interface Host {
  readonly options: RuntimeOptions;
  readonly logger: Logger;
  readonly router: Router;
  readonly parser: BodyParser;
  /** True once shutdown began (the lame-duck period included): every response closes its connection. */
  readonly closing: boolean;
  /** The memory budget shared by the app's requests (memory-budget.ts); none in a fake service. */
  readonly memory?: MemoryBudget | undefined;
  /** The app's count of open connections (connection-limit.ts); none in a fake service. */
  readonly connections?: ConnectionLimit | undefined;
  /** Pressure and the shedding actions (overload.ts); none in a fake service. */
  readonly overload?: Overload | undefined;
  /** True once new requests are refused with 503. */
  readonly refusing: boolean;
  /** A request arrived (counted in flight until `requestFinished`). */
  requestStarted(): void;
  /** A request's line was logged: called exactly once per `requestStarted`. */
  requestFinished(x: Exchange, status: number, durationMs: number): void;
  /** Work given to `service.waitUntil` began: counted in flight, so shutdown's drain waits for it. */
  backgroundStarted(): void;
  /** That work settled: called exactly once per `backgroundStarted`. */
  backgroundFinished(): void;
}

export class Exchange {
  readonly host: Host;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly logid: string;
  readonly start: number;
  readonly method: string;
  rawPath: string;
  rawQuery: string;
  fn: LoadedFunction | undefined;
  routeParams: Record<string, string | string[]>;
  trigger: Trigger;
  status: number;
  /** Headers the handler set, by lower-case name: [name as written, value]. */
  headers: Record<string, [string, HeaderValue]> | undefined;
  cookies: string[] | undefined;
  controller: AbortController | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Set by `claim()` once a response was started or given up; later writes are ignored. */
  done: boolean;
  /** Why the request ended early: 'timeout' or 'disconnect'. */
  abortReason: string | undefined;
  /** The body was left unread (413, 415): the connection cannot be reused. */
  closeConnection: boolean;
  /** Bytes this request took of the app's memory budget, given back when it finishes. */
  heldBytes: number;
  /** The trace: the incoming `traceparent`'s, or a new one (32 hex digits). */
  traceId: string;
  /** This request's span (16 hex digits): new per request, or the OpenTelemetry span's. */
  spanId: string;
  /** The caller's span from a valid incoming `traceparent`. */
  parentSpanId: string | undefined;
  /** The trace-flags byte: the caller's, or 1 (sampled) for a trace started here. */
  traceFlags: number;
  /** The OpenTelemetry span and duration of the request, when an SDK is registered. */
  otel: ServerTelemetry | undefined;

  constructor(host: Host, req: IncomingMessage, res: ServerResponse, logid: string) {
    this.host = host;
    this.req = req;
    this.res = res;
    this.logid = logid;
    this.start = monotonicMs();
    this.method = req.method ?? 'GET';
    this.rawPath = '/';
    this.rawQuery = '';
    this.fn = undefined;
    this.routeParams = NO_PARAMS;
    this.trigger = host.options.trigger;
    this.status = 200;
    this.headers = undefined;
    this.cookies = undefined;
    this.controller = undefined;
    this.timer = undefined;
    this.done = false;
    this.abortReason = undefined;
    this.closeConnection = false;
    this.heldBytes = 0;
    // W3C Trace Context: continue the caller's trace, or start one. Without the header (most
    // requests) this is one property read and two slices of a random batch (trace/ids.ts).
    const parent = parseTraceparent(req.headers.traceparent);
    if (parent === undefined) {
      this.traceId = ids.traceId();
      this.parentSpanId = undefined;
      this.traceFlags = 1;
    } else {
      this.traceId = parent.traceId;
      this.parentSpanId = parent.parentId;
      this.traceFlags = parent.flags;
    }
    this.spanId = ids.spanId();
    this.otel = undefined;
  }

  /**
   * Takes the right to answer (or to give up answering): true the first time, false after.
   * The handler's timer stops here, since nothing is left for it to do.
   */
  claim(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    return true;
  }

  setHeader(field: string, value: HeaderValue): void {
    (this.headers ??= Object.create(null) as Record<string, [string, HeaderValue]>)[field.toLowerCase()] = [
      field,
      value,
    ];
  }

  removeHeader(field: string): void {
    if (this.headers !== undefined) delete this.headers[field.toLowerCase()];
  }

  addCookie(serialized: string): void {
    (this.cookies ??= []).push(serialized);
  }

  /** The abort signal, created on first read; already aborted when the request ended early. */
  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(abortError(this.abortReason));
    }
    return this.controller.signal;
  }

  abort(reason: string): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.controller?.abort(abortError(reason));
  }

  log(level: LogLevel, values: readonly unknown[]): void {
    this.host.logger.values(level, this.logid, this.fn?.name ?? '', values, this);
  }

  /** Writes a runtime line of this request: its logid, function and trace ids. */
  line(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    this.host.logger.line(level, this.logid, this.fn?.name ?? '', msg, fields, this);
  }

  functionName(): string {
    return this.fn?.name ?? '';
  }
}

function abortError(reason: string): Error {
  const error = new Error(reason === 'timeout' ? 'the function timed out' : 'the client disconnected');
  error.name = reason === 'timeout' ? 'TimeoutError' : 'AbortError';
  return error;
}
