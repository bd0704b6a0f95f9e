/**
 * What the dev server and the console page exchange: the answers of `/_cloudfn/api/*`, the
 * server-sent events of `/_cloudfn/api/events`, the answers of the panels' routes (timers, live
 * rooms) and the OpenAPI document as far as the params form reads it. Types only. The server's
 * modules and the page both import these declarations, so no shape is written twice; the page is
 * built for the browser without Node's types, so this file imports only files that need none
 * (runtime/shapes.ts, runtime/contract/pointer.ts, src/typecheck/format.ts).
 */
import type { DevUser, LogLevel, LogRecord, RequestInfo } from '../../../runtime/shapes.js';
import type { ParamsIssue } from '../../../runtime/contract/pointer.js';
import type { TypeDiagnostic } from '../../typecheck/format.js';

export type { DevUser, LogLevel, LogRecord, ParamsIssue, RequestInfo, TypeDiagnostic };

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
}

/** A function with a `config.schedule` (src/schedule/scheduler.ts). */
export interface ScheduledFunction {
  name: string;
  schedule: string;
  /** The JSON body of every firing (`{}` for the string form). */
  params: unknown;
  /** The next firing, ISO 8601, or undefined when none is left (absent from the JSON then). */
  next: string | undefined;
}

/** `GET /_cloudfn/api/functions`: the functions, the routes and the headers the page sends. */
export interface ConsoleMeta {
  functions: FunctionStatus[];
  routes: { pattern: string; target: string }[];
  logidHeader: string;
  triggerHeader: string;
  consoleTrigger: string;
  /** The functions with a `config.schedule`, and their next firings. */
  schedules: ScheduledFunction[];
  /** The user the dev server acts as (config devUser, CLOUDFN_DEV_*). */
  devUser: DevUser;
}

/** A log record as the hub sends it: with its number, the key the page de-duplicates on. */
export type ConsoleLogRecord = LogRecord & { seq: number };

/** `GET /_cloudfn/api/logs?logid=…` or `?trace_id=…`: the kept lines of a request or a trace. */
export type LogsAnswer = { records: ConsoleLogRecord[] } & ({ logid: string } | { traceId: string });

/** The `typecheck` event: the checker's state and the errors of its last check (src/dev/type-errors.ts). */
export interface TypecheckEvent {
  state: 'checking' | 'done' | 'off';
  diagnostics: TypeDiagnostic[];
  ms?: number;
  /** Why there is no check (`off`). */
  reason?: string;
}

/** `GET /_cloudfn/api/database[?collection=…]`: the SDK stand-in's database (src/platform/sdk/browse.ts). */
export interface DatabaseView {
  /** The folder holding the collection files. */
  dir: string;
  collections: { name: string; count: number }[];
  /** The documents of the collection asked for, when one was. */
  collection?: { name: string; count: number; documents: Record<string, unknown>[] };
}

/** A WebSocket gateway connection as the console and the query API show it (src/platform/gateway). */
export interface SessionInfo {
  sessionId: string;
  openid: string;
  /** The function's path (`X-TT-SERVICE-PATH`). */
  path: string;
  /** The function that answered connect, when known. */
  functionName: string | undefined;
  /** The client's address (`X-Forwarded-For`). */
  ip: string;
  connectedAt: number;
  /** Each group as `name=value`. */
  groups: string[];
  /** The live room's headers (`X-Room-ID`, ...) sent on each call, when the client is in one. */
  room?: Readonly<Record<string, string>>;
}

/** How a push chose its connections. */
export type PushVia = 'session' | 'openid' | 'group' | 'live';

/** What the gateway reports, and the `ws` event carries: one entry per call, refusal, push and close. */
export type GatewayActivity =
  | { type: 'connect'; session: SessionInfo; status: number; logid: string }
  | { type: 'refused'; path: string; openid: string; status: number; body: string; logid: string }
  | { type: 'uplink'; sessionId: string; data: string; binary: boolean; status: number; logid: string }
  | { type: 'disconnect'; sessionId: string; code: number; reason: string; status: number; logid: string }
  | { type: 'push'; sessionId: string; data: string; binary: boolean; via: PushVia }
  | { type: 'group'; action: 'join' | 'leave'; sessionId: string; group: string };

/** `GET /_cloudfn/api/connections`: the gateway's open connections. */
export interface ConnectionsAnswer {
  connections: SessionInfo[];
}

/** The events of `/_cloudfn/api/events`, each with the data it carries. */
export interface HubEvents {
  /** A log record, numbered. */
  log: ConsoleLogRecord;
  /** A request ended. */
  request: RequestInfo;
  /** The function list changed. */
  functions: FunctionStatus[];
  /** The type checker's state and errors. */
  typecheck: TypecheckEvent;
  /** One step of the WebSocket gateway. */
  ws: GatewayActivity;
  /** The database stand-in's files changed (any process): `at` is when it was seen. */
  database: { at: number };
}

/** The name of an event of the feed. */
export type HubEvent = keyof HubEvents;

/** `POST /_cloudfn/trigger/<function>`: one firing of a timer, as the function answered it. */
export interface TriggerAnswer {
  function: string;
  /** The status the function answered. */
  status: number;
  /** The logid of the firing's request line. */
  logid: string;
  /** The function's response body, as text. */
  body: string;
  /** True when the firing was cut at its limit (status 0, no body). */
  cut: boolean;
}

/** One live room data task, as `GET /_cloudfn/live/rooms` lists it (src/platform/live/rooms.ts). */
export interface LiveTaskInfo {
  roomid: string;
  msgType: string;
  taskId: string;
  running: boolean;
}

/** `GET /_cloudfn/live/rooms`: the anchor, the data path and the tasks (src/platform/live/dev-routes.ts). */
export interface LiveRoomsAnswer {
  anchor: string;
  path: string | null;
  tasks: LiveTaskInfo[];
  /** Each room with a task or a known anchor: its anchor, where that came from, its tasks. */
  rooms: { roomid: string; anchor: string; anchorFrom: string; tasks: LiveTaskInfo[] }[];
  /** The scripted traffic runs, so far. */
  traffic: unknown[];
}

/** `POST /_cloudfn/live/<roomid>/<msg_type>`: one push to the data path and the function's answer. */
export interface LivePushAnswer {
  roomid: string;
  msg_type: string;
  messages: unknown[];
  status: number;
  logid: string;
  body: string;
}

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
 * `GET /_cloudfn/openapi.json` (src/contract/openapi.ts), as far as the page's params form reads
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
