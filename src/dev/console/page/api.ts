/** What the dev server tells the page: the shapes of /_cloudfn/api/* and its events. */

export interface FunctionInfo {
  name: string;
  file: string;
  path: string;
  status: 'ok' | 'error';
  error?: string;
  version: number;
  buildMs: number;
  updatedAt: number;
  /** What it reads: the page pre-selects POST for `body` and `multipart` (src/dev/function-input.ts). */
  input: 'query' | 'body' | 'multipart';
}

export interface ConsoleMeta {
  functions: FunctionInfo[];
  routes: { pattern: string; target: string }[];
  logidHeader: string;
  triggerHeader: string;
  consoleTrigger: string;
  /** The functions with a `config.schedule`, and their next firings. */
  schedules?: { name: string; schedule: string; params?: unknown; next?: string }[];
  /** The user the dev server acts as (config devUser, CLOUDFN_DEV_*). */
  devUser: DevUserInfo;
}

/** The dev user, as the gateway would send it in X-TT-* headers. */
export interface DevUserInfo {
  openid: string;
  appid: string;
  unionid: string;
  env: string;
  source: string;
  ip: string;
  roomid?: string;
  anchorOpenid?: string;
  avatarUrl?: string;
  nickname?: string;
}

export interface LogRecord {
  /** The dev server's number for the record, increasing: the key the page de-duplicates on. */
  seq: number;
  level: 'log' | 'debug' | 'info' | 'warn' | 'error';
  logid: string;
  /** The request's trace id, on the lines of a request. */
  trace_id?: string;
  function: string;
  time: number;
  msg?: string;
  [field: string]: unknown;
}

export interface RequestInfo {
  logid: string;
  /** The request's W3C trace id: every line of the request carries it as `trace_id`. */
  traceId: string;
  functionName: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  trigger: string;
}

export const API = '/_cloudfn/api';

/** Reads the function list and the headers to send. */
export async function fetchMeta(): Promise<ConsoleMeta> {
  const res = await fetch(`${API}/functions`);
  if (!res.ok) throw new Error(`${API}/functions answered ${res.status}`);
  return (await res.json()) as ConsoleMeta;
}

/**
 * The kept lines of one request (for a response whose live lines were missed), or with
 * `byTrace`, of every request of one trace (a function calling another through the server).
 */
export async function fetchLogs(id: string, options: { byTrace?: boolean } = {}): Promise<LogRecord[]> {
  const res = await fetch(`${API}/logs?${options.byTrace === true ? 'trace_id' : 'logid'}=${encodeURIComponent(id)}`);
  if (!res.ok) return [];
  return ((await res.json()) as { records: LogRecord[] }).records;
}

/** One type error (src/typecheck/format.ts). */
export interface TypeDiagnostic {
  file: string;
  line: number;
  column: number;
  code: string;
  message: string;
  lineText: string;
  length: number;
}

/** The `typecheck` event: the checker's state and the errors of its last check. */
export interface TypecheckInfo {
  state: 'checking' | 'done' | 'off';
  diagnostics: TypeDiagnostic[];
  ms?: number;
  reason?: string;
}

export interface FeedHandlers {
  typecheck(info: TypecheckInfo): void;
  log(record: LogRecord): void;
  request(info: RequestInfo): void;
  functions(list: FunctionInfo[]): void;
  status(connected: boolean): void;
}

/** Subscribes to the server-sent events; the browser reconnects by itself after a restart. */
export function openFeed(handlers: FeedHandlers): EventSource {
  const source = new EventSource(`${API}/events`);
  source.addEventListener('open', () => handlers.status(true));
  source.addEventListener('error', () => handlers.status(false));
  source.addEventListener('log', (event) =>
    handlers.log(JSON.parse((event as MessageEvent<string>).data) as LogRecord),
  );
  source.addEventListener('request', (event) =>
    handlers.request(JSON.parse((event as MessageEvent<string>).data) as RequestInfo),
  );
  source.addEventListener('typecheck', (event) =>
    handlers.typecheck(JSON.parse((event as MessageEvent<string>).data) as TypecheckInfo),
  );
  source.addEventListener('functions', (event) =>
    handlers.functions(JSON.parse((event as MessageEvent<string>).data) as FunctionInfo[]),
  );
  return source;
}

/** A log id for a request sent from the page: `console-` and 16 hex digits. */
export function newLogid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return 'console-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
