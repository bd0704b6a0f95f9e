/**
 * The page's calls to the dev server: the function list, a request's kept lines and the event
 * feed, typed by the protocol the server answers with (../protocol.ts).
 */
import type { SdkEvents } from '../../../platform/sdk/protocol.js';
import type {
  ConsoleLogRecord,
  ConsoleMeta,
  FunctionStatus,
  HubEvents,
  LogsAnswer,
  RequestInfo,
  RequestsAnswer,
  TypecheckEvent,
} from '../protocol.js';

/** Where the dev server answers the page: the one spelling of the prefix on the page's side. */
export const PREFIX = '/_cloudfn';

/** The console's JSON API. */
export const API = `${PREFIX}/api`;

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
export async function fetchLogs(id: string, options: { byTrace?: boolean } = {}): Promise<ConsoleLogRecord[]> {
  const res = await fetch(`${API}/logs?${options.byTrace === true ? 'trace_id' : 'logid'}=${encodeURIComponent(id)}`);
  if (!res.ok) return [];
  return ((await res.json()) as LogsAnswer).records;
}

/** The requests the server answered before the page opened, newest first; none when it cannot say. */
export async function fetchRecentRequests(): Promise<RequestInfo[]> {
  const res = await fetch(`${API}/requests`, { cache: 'no-store' });
  if (!res.ok) return [];
  return ((await res.json()) as RequestsAnswer).requests;
}

export interface FeedHandlers {
  typecheck(info: TypecheckEvent): void;
  log(record: ConsoleLogRecord): void;
  request(info: RequestInfo): void;
  functions(list: FunctionStatus[]): void;
  status(connected: boolean): void;
  /** The database stand-in's files changed. @default ignored */
  database?(): void;
}

/** The feed's events this page reads: the console's core and the SDK stand-in's panel. */
type FeedEvents = HubEvents & SdkEvents;

/** Subscribes to the server-sent events; the browser reconnects by itself after a restart. */
export function openFeed(handlers: FeedHandlers): EventSource {
  const source = new EventSource(`${API}/events`);
  source.addEventListener('open', () => handlers.status(true));
  source.addEventListener('error', () => handlers.status(false));
  const on = <E extends keyof FeedEvents>(event: E, handle: (data: FeedEvents[E]) => void): void =>
    source.addEventListener(event, (message) =>
      handle(JSON.parse((message as MessageEvent<string>).data) as FeedEvents[E]),
    );
  on('log', (record) => handlers.log(record));
  on('request', (info) => handlers.request(info));
  on('typecheck', (info) => handlers.typecheck(info));
  on('functions', (list) => handlers.functions(list));
  on('database', () => handlers.database?.());
  return source;
}

/** A log id for a request sent from the page: `console-` and 16 hex digits. */
export function newLogid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return 'console-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
