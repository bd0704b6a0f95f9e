/**
 * The dev console page: pick a function, edit a request, send it with trigger console_debug
 * (or cancel it), read the response and that request's log lines as they arrive (filtered by
 * level and text), follow every request the server answers, replay recent requests, copy a
 * request as curl or fill the editor from one.
 */
import {
  fetchLogs,
  fetchMeta,
  newLogid,
  openFeed,
  type ConsoleMeta,
  type FunctionInfo,
  type LogRecord,
  type RequestInfo,
  type TypecheckInfo,
} from './api.js';
import { callerHeaders, renderCallerPicker, type CallerChoice } from './caller.js';
import { toCurl } from './curl.js';
import { CurlPanel } from './curl-panel.js';
import { byId, h, replace } from './dom.js';
import { newDraft, setPathText, toRequest, urlOf, type Draft } from './draft.js';
import { firstDraft, loadDrafts, saveDrafts } from './drafts.js';
import { Editor } from './editor.js';
import { clearHistory, loadHistory, remember, settle, type HistoryEntry } from './history.js';
import { LogFilter } from './log-filter.js';
import { startDatabasePanel } from './database-panel.js';
import { startLivePanel } from './live-panel.js';
import { startConnectionsPanel } from './connections-panel.js';
import { startObservePanel } from './observe-panel.js';
import { fetchParamsSchemas, ParamsForm } from './params-form.js';
import { RequestList, statusKind } from './requests.js';
import { defaultView, formatBytes, renderBody, renderHeaders, renderLog, type BodyView } from './view.js';

/**
 * The log lines shown: those of the page's last request, or of a request picked in the list;
 * with `byTrace`, those of every request of its trace.
 */
interface LogView {
  logid: string;
  /** The request's trace id, once known (from its request event). */
  traceId?: string;
  byTrace?: boolean;
  records: LogRecord[];
}

/** Whether a record belongs in a view: its request's, or its trace's. */
function belongs(view: LogView, record: LogRecord): boolean {
  return view.byTrace === true ? record.trace_id === view.traceId : record.logid === view.logid;
}

interface Exchange extends LogView {
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

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

let meta: ConsoleMeta | undefined;
let functions: FunctionInfo[] = [];
let selected: string | undefined;
let history: HistoryEntry[] = loadHistory();
let current: Exchange | undefined;
let shown: LogView | undefined;
let connected = false;
/** Who the next request is made as (the "Call as" picker). */
let caller: CallerChoice = { as: 'dev' };
const drafts = loadDrafts();

const editor = new Editor(byId('editor'), newDraft('/'), {
  send: () => void send(),
  cancel: () => current?.abort?.abort(),
  change: (draft) => {
    if (selected !== undefined) drafts[selected] = draft;
    saveDrafts(drafts);
  },
  copyCurl: () => curlPanel.showCommand(toCurl(editor.draft, location.origin)),
  pasteCurl: (text) => curlPanel.showPaste(text),
});
const curlPanel = new CurlPanel(byId('curl'), (draft) => {
  const fn = functionFor(draft.path);
  if (fn !== undefined) choose(fn.name, draft);
  editor.set(draft);
  if (selected !== undefined) drafts[selected] = draft;
  saveDrafts(drafts);
});
// The form of a function with declared params: it fills the editor's JSON body and sends.
let paramsSchemas: Awaited<ReturnType<typeof fetchParamsSchemas>> = new Map();
const paramsForm = new ParamsForm(byId('params-form'), {
  send: (params) => {
    const draft = structuredClone(editor.draft);
    draft.method = 'POST';
    draft.bodyType = 'json';
    draft.json = JSON.stringify(params, null, 2);
    editor.set(draft);
    if (selected !== undefined) drafts[selected] = draft;
    saveDrafts(drafts);
    void send();
  },
});
/** Fetches the functions' schemas again (after a reload) and redraws the selected one's form. */
function refreshParamsForm(): void {
  fetchParamsSchemas().then(
    (schemas) => {
      paramsSchemas = schemas;
      if (selected !== undefined) paramsForm.show(selected, paramsSchemas.get(selected));
    },
    () => undefined,
  );
}
const requests = new RequestList(byId('requests'), {
  show: (info) => void showLogsOf(info.logid, info.traceId),
  replay: (info) => replay(info),
});
const logFilter = new LogFilter(byId('log-filter'), () => filterLogs());

// ---- functions ---------------------------------------------------------------------------

function renderFunctions(): void {
  const list = byId('functions');
  if (functions.length === 0) {
    replace(list, h('li', { class: 'muted empty' }, 'No functions yet: add functions/hello.ts'));
    return;
  }
  replace(
    list,
    ...functions.map((fn) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            class: `fn${fn.name === selected ? ' active' : ''}${fn.status === 'error' ? ' failing' : ''}`,
            'data-fn': fn.name,
            onclick: () => select(fn.name),
          },
          h('span', { class: `status-dot ${fn.status}`, title: fn.status === 'ok' ? 'compiled' : 'failing' }),
          h('span', { class: 'fn-name' }, fn.name),
          h('span', { class: 'fn-meta', title: `${fn.file}, built in ${fn.buildMs} ms` }, `v${fn.version}`),
          ...(typeErrors.some((d) => d.file === fn.file)
            ? [h('span', { class: 'type-flag', title: 'this file has type errors' }, 'TS')]
            : []),
        ),
      ),
    ),
  );
}

function select(name: string): void {
  const fn = functions.find((f) => f.name === name);
  if (fn === undefined) return;
  selected = name;
  setHash(name);
  const draft = (drafts[name] ??= firstDraft(fn));
  editor.set(draft);
  paramsForm.show(name, paramsSchemas.get(name));
  renderFunctions();
  renderFunctionError();
}

function setHash(name: string): void {
  window.history.replaceState(null, '', `#${encodeURIComponent(name)}`);
}

function renderFunctionError(): void {
  const box = byId('function-error');
  const fn = functions.find((f) => f.name === selected);
  if (fn?.status !== 'error') {
    box.hidden = true;
    replace(box);
    return;
  }
  box.hidden = false;
  replace(
    box,
    h('h2', {}, `${fn.file} does not compile or load`),
    h('pre', { class: 'code' }, fn.error ?? ''),
    h('p', { class: 'hint' }, 'Fix the file and save: the function reloads by itself.'),
  );
}

/** The type checker's errors, as a banner above the editor; the functions with errors are marked. */
let typeErrors: TypecheckInfo['diagnostics'] = [];

function renderTypeErrors(info: TypecheckInfo): void {
  if (info.state === 'checking') return;
  typeErrors = info.diagnostics;
  const box = byId('type-errors');
  box.hidden = typeErrors.length === 0;
  if (typeErrors.length === 0) {
    replace(box);
  } else {
    const lines = typeErrors.map(
      (d) => `${d.file}:${d.line}:${d.column}: ${d.message} ${d.code}\n  ${d.line} | ${d.lineText}`,
    );
    replace(
      box,
      h('h2', {}, `${typeErrors.length} type error${typeErrors.length === 1 ? '' : 's'}`),
      h('pre', { class: 'code', id: 'type-errors-list' }, lines.join('\n')),
      h(
        'p',
        { class: 'hint' },
        'The functions still run (esbuild does not check types); cloudfn build refuses them. Fix and save: this clears by itself.',
      ),
    );
  }
  renderFunctions();
}

// ---- sending --------------------------------------------------------------------------------

async function send(): Promise<void> {
  if (meta === undefined) return;
  const draft = structuredClone(editor.draft);
  const logid = newLogid();
  let request;
  try {
    request = toRequest(draft, {
      [meta.logidHeader]: logid,
      [meta.triggerHeader]: meta.consoleTrigger,
      ...callerHeaders(caller, meta.devUser),
    });
  } catch (error) {
    current = { logid, draft, records: [], failure: (error as Error).message, tab: 'body' };
    shown = current;
    renderResponse();
    renderLogs();
    return;
  }
  current?.abort?.abort();
  const abort = new AbortController();
  current = { logid, draft, records: [], tab: current?.tab ?? 'body', abort };
  shown = current;
  const exchange = current;
  history = remember(history, { id: logid, at: Date.now(), draft });
  renderHistory();
  renderResponse();
  renderLogs();
  editor.setBusy(true);
  const started = performance.now();
  try {
    const res = await fetch(request.url, { ...request.init, signal: abort.signal });
    const bytes = new Uint8Array(await res.arrayBuffer());
    exchange.response = { status: res.status, headers: res.headers, bytes, roundTripMs: performance.now() - started };
    history = settle(history, logid, res.status, exchange.response.roundTripMs);
  } catch (error) {
    if (abort.signal.aborted) exchange.cancelled = true;
    else exchange.failure = `the request failed: ${(error as Error).message} (is the dev server running?)`;
  }
  exchange.abort = undefined;
  if (current !== exchange) return;
  editor.setBusy(false);
  renderHistory();
  renderResponse();
  paramsForm.showIssues(issuesOf(exchange));
  // Lines missed while the event stream was down are fetched once.
  if (!connected) {
    for (const record of await fetchLogs(logid)) addRecord(exchange, record);
  }
}

function addRecord(view: LogView, record: LogRecord): void {
  // A record comes live and again from /api/logs: the same seq is the same record. Two records
  // with the same time, message and level are not (two objects logged in one millisecond).
  if (view.records.some((r) => r.seq === record.seq)) return;
  const after = view.records.findIndex((r) => r.seq > record.seq);
  if (after === -1) view.records.push(record);
  else view.records.splice(after, 0, record);
  if (view !== shown) return;
  const list = byId('logs');
  const line = renderLog(record);
  if (after === -1) list.appendChild(line);
  else list.insertBefore(line, list.children[after] ?? null);
  filterLogs();
}

function filterLogs(): void {
  if (shown !== undefined) logFilter.apply(byId('logs'), shown.records);
}

/** Shows the lines of a request picked in the list: those kept by the server, then live ones. */
async function showLogsOf(logid: string, traceId: string | undefined): Promise<void> {
  const view: LogView = current?.logid === logid ? current : { logid, records: [] };
  if (traceId !== undefined) view.traceId = traceId;
  view.byTrace = false;
  shown = view;
  requests.select(logid);
  renderLogs();
  for (const record of await fetchLogs(logid)) addRecord(view, record);
}

/** Shows the lines of every request of the shown request's trace (the trace id's link). */
async function showTraceOf(view: LogView): Promise<void> {
  if (view.traceId === undefined) return;
  const traced: LogView = { logid: view.logid, traceId: view.traceId, byTrace: true, records: [] };
  shown = traced;
  renderLogs();
  for (const record of await fetchLogs(view.traceId, { byTrace: true })) addRecord(traced, record);
}

/** The function serving a path: its own path, else the longest that prefixes it. */
function functionFor(path: string): FunctionInfo | undefined {
  return (
    functions.find((f) => f.path === path) ??
    functions.filter((f) => path.startsWith(f.path + '/')).sort((a, b) => b.path.length - a.path.length)[0]
  );
}

/** Makes `name` the selected function, holding `draft`. */
function choose(name: string, draft: Draft): void {
  selected = name;
  setHash(name);
  drafts[name] = draft;
  renderFunctions();
  renderFunctionError();
}

/**
 * Sends a listed request again: the page's own from its history entry (body included); any
 * other with its method and URL over the function's draft (the server does not keep bodies).
 */
function replay(info: RequestInfo): void {
  const entry = history.find((e) => e.id === info.logid);
  if (entry !== undefined) {
    load(entry);
    void send();
    return;
  }
  const path = info.url.split('?')[0] ?? '/';
  const fn = functionFor(path);
  const base = fn === undefined ? newDraft(path) : (drafts[fn.name] ?? firstDraft(fn));
  const draft = structuredClone(base);
  draft.method = info.method === 'POST' ? 'POST' : 'GET';
  draft.query = [];
  setPathText(draft, info.url);
  if (fn !== undefined) choose(fn.name, draft);
  editor.set(draft);
  void send();
}

// ---- response --------------------------------------------------------------------------------

function renderResponse(): void {
  const summary = byId('response-summary');
  const tabs = byId('response-tabs');
  const pane = byId('response-pane');
  const exchange = current;
  if (exchange === undefined) {
    replace(summary, h('span', { class: 'muted' }, 'Send a request to see its response here.'));
    replace(tabs);
    replace(pane);
    return;
  }
  if (exchange.cancelled === true) {
    replace(
      summary,
      h('span', { class: 'badge warn', id: 'response-status' }, 'cancelled'),
      h('code', { class: 'request-url' }, `${exchange.draft.method} ${urlOf(exchange.draft)}`),
    );
    replace(tabs);
    replace(pane, h('p', { class: 'muted' }, 'You cancelled the request before its response arrived.'));
    return;
  }
  if (exchange.failure !== undefined) {
    replace(summary, h('span', { class: 'badge bad', id: 'response-status' }, 'not sent'));
    replace(tabs);
    replace(pane, h('p', { class: 'problem', id: 'response-problem' }, exchange.failure));
    return;
  }
  const response = exchange.response;
  if (response === undefined) {
    replace(
      summary,
      h('span', { class: 'badge pending', id: 'response-status' }, 'sending…'),
      h('code', { class: 'request-url' }, `${exchange.draft.method} ${urlOf(exchange.draft)}`),
    );
    replace(tabs);
    replace(pane);
    return;
  }
  const kind = statusKind(response.status);
  const server =
    exchange.info === undefined
      ? null
      : h(
          'span',
          {
            class: 'stat',
            id: 'response-server-duration',
            title: 'time in the request pipeline, from the request line',
          },
          `${exchange.info.durationMs} ms in server`,
        );
  replace(
    summary,
    h(
      'span',
      { class: `badge ${kind}`, id: 'response-status' },
      `${response.status} ${REASONS[response.status] ?? ''}`.trim(),
    ),
    h(
      'span',
      { class: 'stat', id: 'response-duration', title: 'round trip measured by the page' },
      `${response.roundTripMs.toFixed(1)} ms`,
    ),
    server,
    h('span', { class: 'stat', id: 'response-size' }, formatBytes(response.bytes.length)),
    h(
      'span',
      { class: 'stat logid' },
      'logid ',
      h(
        'code',
        { id: 'response-logid' },
        response.headers.get(meta?.logidHeader ?? 'x-platform-logid') ?? exchange.logid,
      ),
    ),
    exchange.info === undefined
      ? null
      : h('span', { class: 'stat trace' }, 'trace ', h('code', { id: 'response-trace' }, exchange.info.traceId)),
  );
  const view = exchange.view ?? defaultView(response.headers.get('content-type'), response.bytes);
  const tab = (id: Exchange['tab'], label: string) =>
    h(
      'button',
      {
        class: `tab${exchange.tab === id ? ' active' : ''}`,
        id: `response-tab-${id}`,
        onclick: () => {
          exchange.tab = id;
          renderResponse();
        },
      },
      label,
    );
  const views = h(
    'div',
    { class: 'segmented views' },
    ...(['pretty', 'text', 'hex'] as const).map((v) =>
      h(
        'button',
        {
          class: v === view ? 'active' : '',
          id: `view-${v}`,
          onclick: () => {
            exchange.view = v;
            renderResponse();
          },
        },
        v === 'pretty' ? 'Pretty' : v === 'text' ? 'Text' : 'Hex',
      ),
    ),
  );
  replace(
    tabs,
    tab('body', 'Body'),
    tab('headers', `Headers (${[...response.headers.keys()].length})`),
    exchange.tab === 'body' ? views : null,
  );
  replace(pane, exchange.tab === 'body' ? renderBody(response.bytes, view) : renderHeaders(response.headers));
}

/** `<logid> trace <trace id>`: the trace id a link to the lines of its whole trace, and back. */
function logsHeading(view: LogView): (HTMLElement | string)[] {
  const logid = h('code', { id: 'logs-logid' }, view.logid);
  if (view.traceId === undefined) return [logid];
  const traceId = view.traceId;
  const toggle = h(
    'a',
    {
      href: '#',
      id: 'logs-trace',
      'data-trace-id': traceId,
      title: view.byTrace === true ? 'show only this request’s lines' : 'show the lines of every request of this trace',
      onclick: (event: Event) => {
        event.preventDefault();
        if (view.byTrace === true) void showLogsOf(view.logid, traceId);
        else void showTraceOf(view);
      },
    },
    h('code', {}, traceId),
  );
  return view.byTrace === true ? ['trace ', toggle, ' (every request)'] : [logid, ' trace ', toggle];
}

function renderLogs(): void {
  const list = byId('logs');
  const view = shown;
  replace(byId('logs-for'), ...(view === undefined ? [] : logsHeading(view)));
  if (view === undefined) {
    replace(
      list,
      h(
        'li',
        { class: 'muted empty' },
        'The lines the function logs for your request appear here as they are written.',
      ),
    );
    return;
  }
  replace(list, ...view.records.map(renderLog));
  filterLogs();
}

// ---- history ---------------------------------------------------------------------------------

function renderHistory(): void {
  const list = byId('history');
  if (history.length === 0) {
    replace(list, h('li', { class: 'muted empty' }, 'Requests you send are kept here.'));
    return;
  }
  replace(
    list,
    ...history.map((entry) => {
      const status =
        entry.status === undefined
          ? h('span', { class: 'badge pending' }, '…')
          : h('span', { class: `badge ${statusKind(entry.status)}` }, String(entry.status));
      return h(
        'li',
        { class: 'history-entry' },
        h(
          'button',
          {
            class: 'load',
            title: `load into the editor (${new Date(entry.at).toLocaleTimeString()})`,
            onclick: () => load(entry),
          },
          h('span', { class: 'method' }, entry.draft.method),
          h('span', { class: 'url' }, readable(urlOf(entry.draft))),
          status,
        ),
        h(
          'button',
          {
            class: 'icon replay',
            title: 'send again',
            'aria-label': 'replay',
            onclick: () => {
              load(entry);
              void send();
            },
          },
          '↻',
        ),
      );
    }),
  );
}

function readable(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** Puts a history entry in the editor, under its function when one serves its path. */
function load(entry: HistoryEntry): void {
  const draft = structuredClone(entry.draft);
  const fn = functionFor(draft.path.split('?')[0] ?? '/');
  if (fn !== undefined) choose(fn.name, draft);
  editor.set(draft);
}

// ---- start -----------------------------------------------------------------------------------

function setConnected(value: boolean): void {
  connected = value;
  const badge = byId('feed-status');
  badge.className = `feed ${value ? 'on' : 'off'}`;
  badge.textContent = value ? 'live' : 'reconnecting…';
}

function updateFunctions(list: FunctionInfo[]): void {
  functions = list;
  if (selected !== undefined && !functions.some((f) => f.name === selected)) selected = undefined;
  renderFunctions();
  renderFunctionError();
}

/** The issues of a 400 CLOUDFN_BAD_PARAMS answer, for the form; none for any other. */
function issuesOf(exchange: Exchange): { path: string; message: string }[] {
  if (exchange.response?.status !== 400) return [];
  try {
    const body = JSON.parse(new TextDecoder().decode(exchange.response.bytes)) as {
      error?: { code?: string; issues?: { path: string; message: string }[] };
    };
    return body.error?.code === 'CLOUDFN_BAD_PARAMS' ? (body.error.issues ?? []) : [];
  } catch {
    return [];
  }
}

async function start(): Promise<void> {
  byId('server-url').textContent = location.host;
  byId('history-clear').addEventListener('click', () => {
    history = clearHistory();
    renderHistory();
  });
  byId('requests-clear').addEventListener('click', () => requests.clear());
  renderHistory();
  renderResponse();
  renderLogs();
  meta = await fetchMeta();
  renderCallerPicker(byId('caller'), meta.devUser, (choice) => {
    caller = choice;
  });
  updateFunctions(meta.functions);
  const observe = startObservePanel(meta.schedules ?? []);
  const database = startDatabasePanel();
  const live = startLivePanel(meta.devUser.appid);
  startConnectionsPanel(meta.functions.map((fn) => fn.path));
  openFeed({
    status: setConnected,
    typecheck: renderTypeErrors,
    log: (record) => {
      if (current !== undefined && belongs(current, record)) addRecord(current, record);
      else if (shown !== undefined && belongs(shown, record)) addRecord(shown, record);
    },
    request: (info) => {
      observe.requestSeen();
      database.requestSeen();
      live.refresh();
      requests.add(info);
      if (shown?.logid === info.logid) requests.select(info.logid);
      if (current === undefined || info.logid !== current.logid) return;
      current.info = info;
      current.traceId = info.traceId;
      renderResponse();
      if (shown === current) renderLogs();
    },
    functions: (list) => {
      updateFunctions(list);
      refreshParamsForm();
      observe.functionsChanged();
    },
  });
  paramsSchemas = await fetchParamsSchemas().catch(() => new Map());
  const wanted = decodeURIComponent(location.hash.slice(1));
  const first = functions.find((f) => f.name === wanted) ?? functions[0];
  if (first !== undefined) select(first.name);
  document.body.dataset['ready'] = 'true';
}

start().catch((error: unknown) => {
  replace(
    byId('response-summary'),
    h('span', { class: 'problem' }, `The console could not start: ${(error as Error).message}`),
  );
});
