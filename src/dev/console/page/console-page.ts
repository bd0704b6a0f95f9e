/**
 * The page's controller: it holds the store and the page's parts, and does what the user asks
 * (pick a function, send or cancel a request, replay one, load one from the history or from a
 * pasted curl command) and what the server's events say (a log line, a request that ended, the
 * function list or the type errors changed). The parts only draw; the state is the store's.
 */
import { fetchLogs, fetchMeta, fetchRecentRequests, newLogid, openFeed } from './api.js';
import { callerHeaders, renderCallerPicker } from './caller.js';
import { toCurl } from './curl.js';
import { CurlPanel } from './curl-panel.js';
import { startDatabasePanel } from './database-panel.js';
import { byId, h, replace } from './dom.js';
import { newDraft, setPathText, toRequest, type Draft } from './draft.js';
import { firstDraft } from './drafts.js';
import { Editor } from './editor.js';
import { renderFunctionError, renderFunctions, renderTypeErrors } from './functions-view.js';
import { clearHistory, remember, settle, type HistoryEntry } from './history.js';
import { renderHistory } from './history-view.js';
import { startLivePanel } from './live-panel.js';
import { startConnectionsPanel } from './connections-panel.js';
import { startServicesPanel } from './services-panel.js';
import { startStoragePanel } from './storage-panel.js';
import { LogFilter } from './log-filter.js';
import { LogsView } from './logs-view.js';
import { schedulesOf, startObservePanel } from './observe-panel.js';
import { fetchParamsSchemas, ParamsForm, type FormIssue } from './params-form.js';
import type { ConsoleMeta, ErrorAnswer, FunctionStatus, RequestInfo } from '../protocol.js';
import { RequestList } from './requests.js';
import { renderResponse } from './response-view.js';
import { belongs, ConsoleStore, type Exchange } from './store.js';

/** The issues of a 400 CLOUDFN_BAD_PARAMS answer, for the form; none for any other. */
function issuesOf(exchange: Exchange): FormIssue[] {
  if (exchange.response?.status !== 400) return [];
  try {
    const body = JSON.parse(new TextDecoder().decode(exchange.response.bytes)) as Partial<ErrorAnswer>;
    return body.error?.code === 'CLOUDFN_BAD_PARAMS' ? (body.error.issues ?? []) : [];
  } catch {
    return [];
  }
}

/** The header's note that the dev server was started again, and why (the meta's `restarted`). */
function showRestarted(meta: ConsoleMeta): void {
  const note = byId('restarted');
  const restarted = meta.restarted;
  note.hidden = restarted === undefined;
  if (restarted === undefined) return;
  const at = new Date(restarted.at).toLocaleTimeString();
  note.textContent = `restarted at ${at}: ${restarted.reason}`;
}

/** The console page: one per document. */
export class ConsolePage {
  readonly store = new ConsoleStore();
  readonly #editor: Editor;
  readonly #curlPanel: CurlPanel;
  /** The form of a function with declared params: it fills the editor's JSON body and sends. */
  readonly #paramsForm: ParamsForm;
  readonly #requests: RequestList;
  readonly #logs: LogsView;
  /** Whether the feed was ever open: a later reconnect may be to a server started again. */
  #wasConnected = false;

  /** Builds the parts over the page's elements. */
  constructor() {
    const store = this.store;
    this.#editor = new Editor(byId('editor'), newDraft('/'), {
      send: () => void this.send(),
      cancel: () => store.current?.abort?.abort(),
      change: (draft) => store.keepDraft(draft),
      copyCurl: () => this.#curlPanel.showCommand(toCurl(this.#editor.draft, location.origin)),
      pasteCurl: (text) => this.#curlPanel.showPaste(text),
    });
    this.#curlPanel = new CurlPanel(byId('curl'), (draft) => {
      const fn = store.functionFor(draft.path);
      if (fn !== undefined) this.#choose(fn.name, draft);
      this.#editor.set(draft);
      store.keepDraft(draft);
    });
    this.#paramsForm = new ParamsForm(byId('params-form'), {
      send: (params) => {
        const draft = structuredClone(this.#editor.draft);
        draft.method = 'POST';
        draft.bodyType = 'json';
        draft.json = JSON.stringify(params, null, 2);
        this.#editor.set(draft);
        store.keepDraft(draft);
        void this.send();
      },
    });
    this.#requests = new RequestList(byId('requests'), {
      show: (info) => void this.#logs.showLogsOf(info.logid, info.traceId),
      replay: (info) => this.#replay(info),
    });
    const logFilter = new LogFilter(byId('log-filter'), () => this.#logs.filter());
    this.#logs = new LogsView(store, logFilter, this.#requests);
  }

  /** Fetches the functions' schemas again (after a reload) and redraws the selected one's form. */
  #refreshParamsForm(): void {
    fetchParamsSchemas().then(
      (schemas) => {
        this.store.paramsSchemas = schemas;
        const selected = this.store.selected;
        if (selected !== undefined) this.#paramsForm.show(selected, schemas.get(selected));
      },
      () => undefined,
    );
  }

  #renderFunctions(): void {
    renderFunctions(this.store, (name) => this.#select(name));
  }

  #renderHistory(): void {
    renderHistory(this.store, {
      load: (entry) => this.#load(entry),
      resend: (entry) => {
        this.#load(entry);
        void this.send();
      },
    });
  }

  #select(name: string): void {
    const store = this.store;
    const fn = store.functions.find((f) => f.name === name);
    if (fn === undefined) return;
    store.selected = name;
    setHash(name);
    const draft = (store.drafts[name] ??= firstDraft(fn));
    this.#editor.set(draft);
    this.#paramsForm.show(name, store.paramsSchemas.get(name));
    this.#renderFunctions();
    renderFunctionError(store);
  }

  /** Makes `name` the selected function, holding `draft`. */
  #choose(name: string, draft: Draft): void {
    this.store.selected = name;
    setHash(name);
    this.store.drafts[name] = draft;
    this.#renderFunctions();
    renderFunctionError(this.store);
  }

  /** Sends the editor's request (cancelling one in flight) and shows its response and lines. */
  async send(): Promise<void> {
    const store = this.store;
    const meta = store.meta;
    if (meta === undefined) return;
    const draft = structuredClone(this.#editor.draft);
    const logid = newLogid();
    let request;
    try {
      request = toRequest(draft, {
        [meta.logidHeader]: logid,
        [meta.triggerHeader]: meta.consoleTrigger,
        ...callerHeaders(store.caller, meta.devUser),
      });
    } catch (error) {
      store.current = { logid, draft, records: [], failure: (error as Error).message, tab: 'body' };
      store.shown = store.current;
      renderResponse(store);
      this.#logs.render();
      return;
    }
    store.current?.abort?.abort();
    const abort = new AbortController();
    const exchange: Exchange = { logid, draft, records: [], tab: store.current?.tab ?? 'body', abort };
    store.current = exchange;
    store.shown = exchange;
    store.history = remember(store.history, { id: logid, at: Date.now(), draft });
    this.#renderHistory();
    renderResponse(store);
    this.#logs.render();
    this.#editor.setBusy(true);
    const started = performance.now();
    try {
      const res = await fetch(request.url, { ...request.init, signal: abort.signal });
      const bytes = new Uint8Array(await res.arrayBuffer());
      exchange.response = { status: res.status, headers: res.headers, bytes, roundTripMs: performance.now() - started };
      store.history = settle(store.history, logid, res.status, exchange.response.roundTripMs);
    } catch (error) {
      if (abort.signal.aborted) exchange.cancelled = true;
      else exchange.failure = `the request failed: ${(error as Error).message} (is the dev server running?)`;
    }
    exchange.abort = undefined;
    if (store.current !== exchange) return;
    this.#editor.setBusy(false);
    this.#renderHistory();
    renderResponse(store);
    this.#paramsForm.showIssues(issuesOf(exchange));
    // Lines missed while the event stream was down are fetched once.
    if (!store.connected) {
      for (const record of await fetchLogs(logid)) this.#logs.add(exchange, record);
    }
  }

  /**
   * Sends a listed request again: the page's own from its history entry (body included); any
   * other with its method and URL over the function's draft (the server does not keep bodies).
   */
  #replay(info: RequestInfo): void {
    const store = this.store;
    const entry = store.history.find((e) => e.id === info.logid);
    if (entry !== undefined) {
      this.#load(entry);
      void this.send();
      return;
    }
    const path = info.url.split('?')[0] ?? '/';
    const fn = store.functionFor(path);
    const base = fn === undefined ? newDraft(path) : (store.drafts[fn.name] ?? firstDraft(fn));
    const draft = structuredClone(base);
    draft.method = info.method === 'POST' ? 'POST' : 'GET';
    draft.query = [];
    setPathText(draft, info.url);
    if (fn !== undefined) this.#choose(fn.name, draft);
    this.#editor.set(draft);
    void this.send();
  }

  /** Puts a history entry in the editor, under its function when one serves its path. */
  #load(entry: HistoryEntry): void {
    const draft = structuredClone(entry.draft);
    const fn = this.store.functionFor(draft.path.split('?')[0] ?? '/');
    if (fn !== undefined) this.#choose(fn.name, draft);
    this.#editor.set(draft);
  }

  #setConnected(value: boolean): void {
    // Back after a break: the server may be a new process, started again after the old one ended.
    if (value && this.#wasConnected && !this.store.connected) void fetchMeta().then(showRestarted, () => undefined);
    if (value) this.#wasConnected = true;
    this.store.connected = value;
    const badge = byId('feed-status');
    badge.className = `feed ${value ? 'on' : 'off'}`;
    badge.textContent = value ? 'live' : 'reconnecting…';
  }

  #updateFunctions(list: FunctionStatus[]): void {
    const store = this.store;
    store.functions = list;
    if (store.selected !== undefined && !list.some((f) => f.name === store.selected)) store.selected = undefined;
    this.#renderFunctions();
    renderFunctionError(store);
  }

  /** Draws the page, reads the functions, starts the panels and follows the server's events. */
  async start(): Promise<void> {
    const store = this.store;
    byId('server-url').textContent = location.host;
    byId('history-clear').addEventListener('click', () => {
      store.history = clearHistory();
      this.#renderHistory();
    });
    byId('requests-clear').addEventListener('click', () => this.#requests.clear());
    this.#renderHistory();
    renderResponse(store);
    this.#logs.render();
    const meta = await fetchMeta();
    store.meta = meta;
    showRestarted(meta);
    renderCallerPicker(byId('caller'), meta.devUser, (choice) => {
      store.caller = choice;
    });
    this.#updateFunctions(meta.functions);
    const observe = startObservePanel(schedulesOf(meta));
    const database = startDatabasePanel();
    const storage = startStoragePanel();
    const live = startLivePanel(meta.devUser.appid);
    const connections = startConnectionsPanel(meta.functions);
    startServicesPanel();
    const feed = openFeed({
      status: (connected) => this.#setConnected(connected),
      typecheck: (info) => renderTypeErrors(store, info, (name) => this.#select(name)),
      database: () => database.changed(),
      log: (record) => {
        if (store.current !== undefined && belongs(store.current, record)) this.#logs.add(store.current, record);
        else if (store.shown !== undefined && belongs(store.shown, record)) this.#logs.add(store.shown, record);
      },
      request: (info) => {
        observe.requestSeen();
        database.requestSeen();
        storage.requestSeen();
        live.refresh();
        this.#requests.add(info);
        if (store.shown?.logid === info.logid) this.#requests.select(info.logid);
        const current = store.current;
        if (current === undefined || info.logid !== current.logid) return;
        current.info = info;
        current.traceId = info.traceId;
        renderResponse(store);
        if (store.shown === current) this.#logs.render();
      },
      functions: (list) => {
        this.#updateFunctions(list);
        this.#refreshParamsForm();
        observe.functionsChanged();
        connections.functionsChanged(list);
      },
    });
    // Once the feed is open (or 2 s on), so that a request is live or in this answer, or both.
    await new Promise<void>((resolve) => {
      if (feed.readyState === EventSource.OPEN) return resolve();
      feed.addEventListener('open', () => resolve(), { once: true });
      setTimeout(resolve, 2000);
    });
    this.#requests.addEarlier(await fetchRecentRequests().catch(() => []));
    store.paramsSchemas = await fetchParamsSchemas().catch(() => new Map());
    const wanted = decodeURIComponent(location.hash.slice(1));
    const first = store.functions.find((f) => f.name === wanted) ?? store.functions[0];
    if (first !== undefined) this.#select(first.name);
    document.body.dataset['ready'] = 'true';
  }

  /** Shows why the page could not start, where the response would be. */
  static showFailure(error: unknown): void {
    replace(
      byId('response-summary'),
      h('span', { class: 'problem' }, `The console could not start: ${(error as Error).message}`),
    );
  }
}

function setHash(name: string): void {
  window.history.replaceState(null, '', `#${encodeURIComponent(name)}`);
}
