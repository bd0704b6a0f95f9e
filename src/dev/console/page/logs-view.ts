/**
 * The log pane: the lines of the shown request (or of its whole trace) as they arrive, in the
 * server's order, filtered by level and text; the heading links a request to its trace and back.
 */
import { fetchLogs } from './api.js';
import { byId, h, replace } from './dom.js';
import type { LogFilter } from './log-filter.js';
import type { ConsoleLogRecord } from '../protocol.js';
import type { RequestList } from './requests.js';
import type { ConsoleStore, LogView } from './store.js';
import { renderLog } from './view.js';

/** Draws the store's shown lines and adds lines to views as they come. */
export class LogsView {
  readonly #store: ConsoleStore;
  readonly #filter: LogFilter;
  readonly #requests: RequestList;

  /** @example const logs = new LogsView(store, logFilter, requests); logs.render(); */
  constructor(store: ConsoleStore, filter: LogFilter, requests: RequestList) {
    this.#store = store;
    this.#filter = filter;
    this.#requests = requests;
  }

  /** Adds a record to a view in its place; draws it when the view is on screen. */
  add(view: LogView, record: ConsoleLogRecord): void {
    // A record comes live and again from /api/logs: the same seq is the same record. Two records
    // with the same time, message and level are not (two objects logged in one millisecond).
    if (view.records.some((r) => r.seq === record.seq)) return;
    const after = view.records.findIndex((r) => r.seq > record.seq);
    if (after === -1) view.records.push(record);
    else view.records.splice(after, 0, record);
    if (view !== this.#store.shown) return;
    const list = byId('logs');
    const line = renderLog(record);
    if (after === -1) list.appendChild(line);
    else list.insertBefore(line, list.children[after] ?? null);
    this.filter();
  }

  /** Hides the lines the level and text filter leave out. */
  filter(): void {
    const shown = this.#store.shown;
    if (shown !== undefined) this.#filter.apply(byId('logs'), shown.records);
  }

  /** Shows the lines of a request picked in the list: those kept by the server, then live ones. */
  async showLogsOf(logid: string, traceId: string | undefined): Promise<void> {
    const current = this.#store.current;
    const view: LogView = current?.logid === logid ? current : { logid, records: [] };
    if (traceId !== undefined) view.traceId = traceId;
    view.byTrace = false;
    this.#store.shown = view;
    this.#requests.select(logid);
    this.render();
    for (const record of await fetchLogs(logid)) this.add(view, record);
  }

  /** Shows the lines of every request of the shown request's trace (the trace id's link). */
  async showTraceOf(view: LogView): Promise<void> {
    if (view.traceId === undefined) return;
    const traced: LogView = { logid: view.logid, traceId: view.traceId, byTrace: true, records: [] };
    this.#store.shown = traced;
    this.render();
    for (const record of await fetchLogs(view.traceId, { byTrace: true })) this.add(traced, record);
  }

  /** Draws the heading and every line of the shown view. */
  render(): void {
    const list = byId('logs');
    const view = this.#store.shown;
    replace(byId('logs-for'), ...(view === undefined ? [] : this.#heading(view)));
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
    this.filter();
  }

  /** `<logid> trace <trace id>`: the trace id a link to the lines of its whole trace, and back. */
  #heading(view: LogView): (HTMLElement | string)[] {
    const logid = h('code', { id: 'logs-logid' }, view.logid);
    if (view.traceId === undefined) return [logid];
    const traceId = view.traceId;
    const toggle = h(
      'a',
      {
        href: '#',
        id: 'logs-trace',
        'data-trace-id': traceId,
        title:
          view.byTrace === true ? 'show only this request’s lines' : 'show the lines of every request of this trace',
        onclick: (event: Event) => {
          event.preventDefault();
          if (view.byTrace === true) void this.showLogsOf(view.logid, traceId);
          else void this.showTraceOf(view);
        },
      },
      h('code', {}, traceId),
    );
    return view.byTrace === true ? ['trace ', toggle, ' (every request)'] : [logid, ' trace ', toggle];
  }
}
