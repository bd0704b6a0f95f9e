/**
 * The console's core: what the dev server and the console page exchange about the functions,
 * their requests and their logs (the answers of `${CLOUDFN_PREFIX}/api/functions` and `/api/logs`, the
 * core events of `${CLOUDFN_PREFIX}/api/events`, the OpenAPI document as far as the params form reads
 * it). Each extension declares its own panel's shapes beside it (src/platform/gateway/
 * protocol.ts, src/platform/live/protocol.ts, src/platform/sdk/protocol.ts,
 * src/schedule/protocol.ts). Types only. The server's
 * modules and the page both import these declarations, so no shape is written twice; the page is
 * built for the browser without Node's types, so this file imports only files that need none
 * (runtime/shapes.ts, runtime/contract/pointer.ts, src/typecheck/format.ts).
 */
import type { DevUser, LogLevel, LogRecord, RequestInfo } from '../../../runtime/shapes.js';
import type { ParamsIssue } from '../../../runtime/contract/pointer.js';
import type { TypeDiagnostic } from '../../typecheck/format.js';

export type { LogLevel, LogRecord, ParamsIssue, RequestInfo, TypeDiagnostic };

/**
 * What a function reads (src/dev/function-input.ts): `query` (GET), `body` (POST with a JSON
 * body) or `multipart` (POST with fields and files); the page pre-selects POST for the last two.
 */
export type FunctionInput = 'query' | 'body' | 'multipart';

/** What the console and the tests learn about a function (src/dev/reloader.ts). */
export interface FunctionStatus {
  /** e.g. `videos/list` */
  name: string;
  /** The source file, relative to the root. */
  file: string;
  /** The path it is served at by default, e.g. `/videos/list`. */
  path: string;
  status: 'ok' | 'error';
  /** The formatted compile or load error, when status is `error`. */
  error?: string;
  /** Counts successful loads, starting at 1. */
  version: number;
  /** Time of the last build and load, in milliseconds. */
  buildMs: number;
  /** When it was last (re)loaded, ms since the epoch. */
  updatedAt: number;
  /** What it reads (`function-input.ts`): the console pre-selects POST for `body` and `multipart`. */
  input: FunctionInput;
  /** Whether it answers the WebSocket gateway (`function-input.ts`): the Connections panel shows only then. */
  websocket: boolean;
}

/** `GET ${CLOUDFN_PREFIX}/api/functions`: the functions, the routes and the headers the page sends. */
export interface ConsoleMeta {
  functions: FunctionStatus[];
  routes: { pattern: string; target: string }[];
  logidHeader: string;
  triggerHeader: string;
  consoleTrigger: string;
  /** The user the dev server acts as (config devUser, CLOUDFN_DEV_*). */
  devUser: DevUser;
  /**
   * Why this dev server was started again by its supervising parent, when it was: the reason
   * its predecessor ended (`function boom (functions/boom.ts:2:11) ended the dev server's
   * process with exit code 3`) and when this one started (ms since the epoch).
   */
  restarted?: { reason: string; at: number };
  /** What the extensions' panels add (the timers' `schedules`: src/schedule/protocol.ts). */
  [panel: string]: unknown;
}

/** A log record as the hub sends it: with its number, the key the page de-duplicates on. */
export type ConsoleLogRecord = LogRecord & { seq: number };

/** `GET ${CLOUDFN_PREFIX}/api/logs?logid=…` or `?trace_id=…`: the kept lines of a request or a trace. */
export type LogsAnswer = { records: ConsoleLogRecord[] } & ({ logid: string } | { traceId: string });

/** `GET ${CLOUDFN_PREFIX}/api/requests`: the requests the server answered lately, newest first. */
export interface RequestsAnswer {
  requests: RequestInfo[];
}

/** The `typecheck` event: the checker's state and the errors of its last check (src/dev/type-errors.ts). */
export interface TypecheckEvent {
  state: 'checking' | 'done' | 'off';
  diagnostics: TypeDiagnostic[];
  ms?: number;
  /** Why there is no check (`off`). */
  reason?: string;
}

/** The events of `${CLOUDFN_PREFIX}/api/events`, each with the data it carries. */
export interface HubEvents {
  /** A log record, numbered. */
  log: ConsoleLogRecord;
  /** A request ended. */
  request: RequestInfo;
  /** The function list changed. */
  functions: FunctionStatus[];
  /** The type checker's state and errors. */
  typecheck: TypecheckEvent;
}

/** The name of an event of the feed. */
export type HubEvent = keyof HubEvents;

/** A JSON Schema, as far as the form reads it. */
export interface FieldSchema {
  type?: string | string[];
  properties?: Record<string, FieldSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * `GET ${CLOUDFN_PREFIX}/openapi.json` (src/contract/openapi.ts), as far as the page's params form reads
 * it: each function's POST, named by `x-cloudfn-function`, and its JSON body's schema.
 */
export interface OpenApiParamsView {
  paths: Record<
    string,
    { post?: { 'x-cloudfn-function'?: string; requestBody?: { content?: Record<string, { schema?: FieldSchema }> } } }
  >;
}

/** The body of every refusal (runtime/request/error-body.ts); `issues` for `CLOUDFN_BAD_PARAMS`. */
export interface ErrorAnswer {
  error: { code: string; message: string; logid: string; issues?: ParamsIssue[] };
}
