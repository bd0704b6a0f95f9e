/**
 * The history column: the requests the page sent (kept in localStorage), each loadable into the
 * editor or sent again.
 */
import { h, byId, replace } from './dom.js';
import { urlOf } from './draft.js';
import type { HistoryEntry } from './history.js';
import { statusKind } from './requests.js';
import type { ConsoleStore } from './store.js';

/** What a click on an entry does. */
export interface HistoryActions {
  /** Put the entry's request in the editor. */
  load(entry: HistoryEntry): void;
  /** Put it in the editor and send it. */
  resend(entry: HistoryEntry): void;
}

/**
 * Draws the history from the store.
 * @example renderHistory(store, { load, resend })
 */
export function renderHistory(store: ConsoleStore, actions: HistoryActions): void {
  const history = store.history;
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
            onclick: () => actions.load(entry),
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
            onclick: () => actions.resend(entry),
          },
          '↻',
        ),
      );
    }),
  );
}

/** A URL with its escapes decoded, for reading. */
function readable(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}
