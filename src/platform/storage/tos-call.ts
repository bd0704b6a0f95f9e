/**
 * The shapes the TOS handler (tos-http.ts) and its operations (operations.ts and the
 * *-operations.ts files of each family) share: what the handler is given, one parsed request,
 * and one answer. Types only.
 */
import type { IncomingMessage } from 'node:http';
import type { ObjectStore } from './object-store.js';
import type { TosKeys } from './signature.js';

/** What the handler needs. */
export interface TosHttpOptions {
  readonly store: ObjectStore;
  readonly keys: TosKeys;
  /** The region the local TOS stands for (`cn-beijing`). */
  readonly region: string;
  /** A line for the dev log (a refusal's reason, a bucket made on first write). */
  warn(message: string): void;
}

/** Where a request went: the platform host it named, and its path and query as sent. */
export interface TosTarget {
  /** The `Host` the request was signed for, e.g. `media.tos-cn-beijing.volces.com`. */
  readonly host: string;
  /** The path as sent (percent-encoded), starting with `/`. */
  readonly path: string;
  /** The query as sent, without `?`. */
  readonly query: string;
}

/** One request of the API, parsed. */
export interface TosCall {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly bucket: string | undefined;
  /** The object key, decoded; undefined for a bucket or the service. */
  readonly key: string | undefined;
  readonly query: URLSearchParams;
  readonly host: string;
  readonly requestId: string;
}

/** An answer an operation gives: status, headers, and a JSON body or a stream. */
export interface TosAnswer {
  status: number;
  headers?: Record<string, string | number>;
  json?: unknown;
  stream?: NodeJS.ReadableStream;
}
