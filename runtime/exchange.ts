/**
 * The state of one request while it runs: what was asked, what the handler set, and the
 * one way out (`finish`), which every response goes through exactly once, so a late write
 * after a timeout or a disconnect is ignored rather than sent to another request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App, LoadedFunction } from './app.js';
import type { LogLevel } from './logger.js';
import type { Trigger } from './types.js';

const EMPTY = Buffer.alloc(0);
const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

export type HeaderValue = string | string[];

export class Exchange {
  readonly app: App;
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
  rawBody: Buffer;
  status: number;
  /** Headers the handler set, by lower-case name: [name as written, value]. */
  headers: Record<string, [string, HeaderValue]> | undefined;
  cookies: string[] | undefined;
  controller: AbortController | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Set once a response was started; later writes are ignored. */
  done: boolean;
  /** Why the request ended early: 'timeout' or 'disconnect'. */
  abortReason: string | undefined;
  /** The body was left unread (413, 415): the connection cannot be reused. */
  closeConnection: boolean;

  constructor(app: App, req: IncomingMessage, res: ServerResponse, logid: string) {
    this.app = app;
    this.req = req;
    this.res = res;
    this.logid = logid;
    this.start = performance.now();
    this.method = req.method ?? 'GET';
    this.rawPath = '/';
    this.rawQuery = '';
    this.fn = undefined;
    this.routeParams = NO_PARAMS;
    this.trigger = app.options.trigger;
    this.rawBody = EMPTY;
    this.status = 200;
    this.headers = undefined;
    this.cookies = undefined;
    this.controller = undefined;
    this.timer = undefined;
    this.done = false;
    this.abortReason = undefined;
    this.closeConnection = false;
  }

  setHeader(field: string, value: HeaderValue): void {
    (this.headers ??= Object.create(null) as Record<string, [string, HeaderValue]>)[field.toLowerCase()] = [field, value];
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
    this.app.logger.values(level, this.logid, this.fn?.name ?? '', values);
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
