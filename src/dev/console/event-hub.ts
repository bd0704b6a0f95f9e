/**
 * The console's live feed: a log sink that keeps the recent records (so a page can ask for a
 * request's lines after the fact) and the recent requests (so a page opened later lists them),
 * and sends every record, request and function-list change to the pages connected by
 * server-sent events.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serializeRecord, type LogRecord, type LogSink } from '../../../runtime/log/record.js';
import type { ConsoleLogRecord, HubEvent, HubEvents, RequestInfo } from './protocol.js';

/** The events a page receives, and their data, are declared in the protocol (protocol.ts). */
export type { HubEvent };

/** A kept record and its number, in the order the server wrote them. */
interface SequencedRecord {
  seq: number;
  record: LogRecord;
}

/** Requests kept for `${CLOUDFN_PREFIX}/api/requests`: as many as the page's list shows. */
export const KEPT_REQUESTS = 200;

/** A slow page whose unsent data passes this many bytes is dropped rather than buffered without end. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** Sends log records and events to connected pages; keeps the last `capacity` records. */
export class EventHub implements LogSink {
  readonly #clients = new Set<ServerResponse>();
  readonly #recent: SequencedRecord[] = [];
  /** The last `KEPT_REQUESTS` requests, oldest first. */
  readonly #requests: RequestInfo[] = [];
  /**
   * The number of the last record: the page de-duplicates on it (a record arrives live and again
   * from /api/logs), since time, message and level do not tell two records apart.
   */
  #seq = 0;
  readonly #capacity: number;
  /** The last value of each event published with `keep`, sent to every page as it connects. */
  readonly #kept = new Map<string, string>();
  #heartbeat: NodeJS.Timeout | undefined;

  /**
   * @param capacity records kept for `${CLOUDFN_PREFIX}/api/logs` @default 2000
   * @example const hub = new EventHub(); new Logger(teeSink(pretty, hub));
   */
  constructor(capacity = 2000) {
    this.#capacity = capacity;
  }

  write(record: LogRecord): void {
    const seq = ++this.#seq;
    this.#recent.push({ seq, record });
    if (this.#recent.length > this.#capacity) this.#recent.splice(0, this.#recent.length - this.#capacity);
    // The record's own JSON with "seq" first; the record object is shared with other sinks.
    if (this.#clients.size > 0) this.#send('log', `{"seq":${seq},${serializeRecord(record).slice(1)}`);
  }

  /** Sends a request's summary (from `app.observers`). */
  request(info: RequestInfo): void {
    this.#requests.push(info);
    if (this.#requests.length > KEPT_REQUESTS) this.#requests.splice(0, this.#requests.length - KEPT_REQUESTS);
    if (this.#clients.size > 0) this.#send('request', JSON.stringify(info));
  }

  /**
   * Sends an event with its data: a core event as protocol.ts types it, or a panel's (the
   * gateway's `ws`), typed beside its extension; with `keep`, pages that connect later get it too.
   * @example hub.publish('typecheck', { state: 'done', diagnostics }, { keep: true })
   */
  publish<E extends string>(
    event: E extends 'log' | 'request' ? never : E,
    data: E extends keyof HubEvents ? HubEvents[E] : unknown,
    options: { keep?: boolean } = {},
  ): void {
    const json = JSON.stringify(data);
    if (options.keep === true) this.#kept.set(event, json);
    if (this.#clients.size > 0) this.#send(event, json);
  }

  /** The kept requests, newest first, as the page lists them. */
  recentRequests(): RequestInfo[] {
    return this.#requests.slice().reverse();
  }

  /** The kept records of one request, oldest first, each with its `seq`. */
  logsFor(logid: string): ConsoleLogRecord[] {
    return this.#recent.filter((kept) => kept.record.logid === logid).map(({ seq, record }) => ({ seq, ...record }));
  }

  /** The kept records of one trace (every request that carried it), oldest first, each with its `seq`. */
  logsForTrace(traceId: string): ConsoleLogRecord[] {
    return this.#recent
      .filter((kept) => kept.record.trace_id === traceId)
      .map(({ seq, record }) => ({ seq, ...record }));
  }

  /** Turns a request into an event stream until the page goes away. */
  subscribe(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    // The retry hint makes a page reconnect quickly after the dev server restarts.
    res.write('retry: 1000\n: connected\n\n');
    for (const [event, json] of this.#kept) res.write(`event: ${event}\ndata: ${json}\n\n`);
    this.#clients.add(res);
    req.socket.setTimeout(0);
    const drop = (): void => void this.#clients.delete(res);
    res.once('close', drop);
    // Proxies and browsers close streams that stay silent; a comment every 15 s keeps it open.
    this.#heartbeat ??= setInterval(() => this.#beat(), 15_000).unref();
  }

  #beat(): void {
    for (const res of this.#clients) res.write(': ping\n\n');
  }

  #send(event: string, json: string): void {
    const frame = `event: ${event}\ndata: ${json}\n\n`;
    for (const res of this.#clients) {
      if (res.writableLength > MAX_BUFFERED) {
        this.#clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(frame);
    }
  }

  /** Ends every stream (the dev server is closing). */
  close(): void {
    clearInterval(this.#heartbeat);
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }
}

/**
 * A sink writing to several sinks, so the terminal and the console both get every record.
 * @example new Logger(teeSink(createPrettySink(), hub))
 */
export function teeSink(...sinks: LogSink[]): LogSink {
  return {
    write(record) {
      for (const sink of sinks) sink.write(record);
    },
    flush() {
      for (const sink of sinks) sink.flush?.();
    },
  };
}
