/**
 * The page's state, in one object: what the server said (meta, functions, type errors), what the
 * user picked (the function, the caller), the drafts and the history, the request in flight and
 * the log lines shown. The page's parts read and write it; nothing else holds state between events.
 */
import type { CallerChoice } from './caller.js';
import type { Draft } from './draft.js';
import { loadDrafts, saveDrafts } from './drafts.js';
import { loadHistory, type HistoryEntry } from './history.js';
import type { ConsoleLogRecord, ConsoleMeta, FunctionStatus, RequestInfo, TypeDiagnostic } from '../protocol.js';
import type { FieldSchema } from './params-form.js';
import type { BodyView } from './view.js';

/**
 * The log lines shown: those of the page's last request, or of a request picked in the list;
 * with `byTrace`, those of every request of its trace.
 */
export interface LogView {
  logid: string;
  /** The request's trace id, once known (from its request event). */
  traceId?: string;
  byTrace?: boolean;
  records: ConsoleLogRecord[];
}

/** A request the page sent, and what came back. */
export interface Exchange extends LogView {
  draft: Draft;
  /** Aborts the fetch in flight; set while it is. */
  abort?: AbortController;
  cancelled?: boolean;
  info?: RequestInfo;
  response?: { status: number; headers: Headers; bytes: Uint8Array; roundTripMs: number };
  failure?: string;
  view?: BodyView;
  tab: 'body' | 'headers';
}

/**
 * Whether a record belongs in a view: its request's, or its trace's.
 * @example belongs({ logid: 'a', records: [] }, record) // record.logid === 'a'
 */
export function belongs(view: LogView, record: ConsoleLogRecord): boolean {
  return view.byTrace === true ? record.trace_id === view.traceId : record.logid === view.logid;
}

/** The console page's state. */
export class ConsoleStore {
  /** The server's answer to `${CLOUDFN_PREFIX}/api/functions`, once it came. */
  meta: ConsoleMeta | undefined;
  functions: FunctionStatus[] = [];
  /** The function the editor holds a draft of. */
  selected: string | undefined;
  history: HistoryEntry[];
  /** The page's last request. */
  current: Exchange | undefined;
  /** The log lines on screen: the current request's, or a listed one's. */
  shown: LogView | undefined;
  /** Whether the event feed is up (lines missed while it is down are fetched once). */
  connected = false;
  /** Who the next request is made as (the "Call as" picker). */
  caller: CallerChoice = { as: 'dev' };
  /** The draft of each function, kept in localStorage. */
  readonly drafts: Record<string, Draft>;
  /** The params schema of each function with declared params (the form). */
  paramsSchemas = new Map<string, FieldSchema>();
  /** The type checker's errors, as of its last check. */
  typeErrors: TypeDiagnostic[] = [];
  /** The drafts' save that waits for the editing to pause. */
  #saving: number | undefined;

  /** Starts from what localStorage kept: the history and the drafts. */
  constructor() {
    this.history = loadHistory();
    this.drafts = loadDrafts();
  }

  /** Keeps `draft` as the selected function's, and saves the drafts. */
  keepDraft(draft: Draft): void {
    if (this.selected !== undefined) this.drafts[this.selected] = draft;
    this.#saving = saveDrafts(this.drafts, this.#saving);
  }

  /** The function serving a path: its own path, else the longest that prefixes it. */
  functionFor(path: string): FunctionStatus | undefined {
    return (
      this.functions.find((f) => f.path === path) ??
      this.functions.filter((f) => path.startsWith(f.path + '/')).sort((a, b) => b.path.length - a.path.length)[0]
    );
  }
}
