/**
 * The console's view of the server SDK stand-in's database (`${CLOUDFN_PREFIX}/api/database`): the
 * collections with their sizes and the documents of the one picked, kept current as anything
 * writes the store (the feed's `database` event, and after requests); and its writes: add, edit
 * (as JSON) and delete a document, clear a collection, export and import the whole store.
 */
import { API } from './api.js';
import { databaseCall, documentEditor } from './database-editor.js';
import { byId, h, replace } from './dom.js';
import type { DatabaseView } from '../../../platform/sdk/protocol.js';

/** Requests answered close together refresh the panel once. */
const REFRESH_DELAY_MS = 300;

/** What main.ts drives. */
export interface DatabasePanel {
  /** A request was answered: its function may have written. */
  requestSeen(): void;
  /** The feed says the store's files changed (a function, cloudfn db, another page). */
  changed(): void;
}

const pretty = (doc: unknown): string => JSON.stringify(doc, null, 2);
const path = (...parts: string[]): string => parts.map((p) => `/${encodeURIComponent(p)}`).join('');

/**
 * Fills `#database` and `#database-docs`, and keeps them current.
 * @example const database = startDatabasePanel(); database.requestSeen();
 */
export function startDatabasePanel(): DatabasePanel {
  const list = byId('database');
  const docs = byId('database-docs');
  const status = h('div', { class: 'muted db-status', role: 'status' });
  const importInput = h('input', {
    type: 'file',
    accept: 'application/json,.json',
    class: 'db-import-file',
    hidden: true,
  });
  let picked: string | undefined;
  /** While a document is being edited, refreshes leave the documents alone. */
  let editing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const say = (text: string): void => {
    status.textContent = text;
  };
  const attempt = async (work: () => Promise<unknown>, done: string): Promise<void> => {
    try {
      await work();
      say(done);
    } catch (error) {
      say((error as Error).message);
    }
    await refresh();
  };

  importInput.addEventListener('change', () => {
    const file = importInput.files?.[0];
    if (file === undefined) return;
    void attempt(async () => databaseCall('POST', '/import', await file.text()), `imported ${file.name}`);
    importInput.value = '';
  });
  list.before(
    h(
      'div',
      { class: 'db-tools' },
      h('a', {
        class: 'link db-export',
        href: `${API}/database/export`,
        download: 'cloudfn-database.json',
        text: 'export',
      }),
      h('button', { class: 'link db-import', text: 'import', onclick: () => importInput.click() }),
      importInput,
    ),
    status,
  );

  const closeEditor = (): void => {
    editing = false;
    void refresh();
  };

  const renderDocs = (view: DatabaseView): void => {
    docs.hidden = view.collection === undefined;
    if (view.collection === undefined || editing) return;
    const name = view.collection.name;
    const adder = h('div', { class: 'db-adder' });
    const add = (): void => {
      editing = true;
      replace(
        adder,
        documentEditor('{\n  \n}', (text) => databaseCall('POST', path('collections', name), text), closeEditor),
      );
    };
    const clear = (): void => {
      if (!confirm(`Remove every document of ${name}?`)) return;
      void attempt(() => databaseCall('DELETE', path('collections', name)), `cleared ${name}`);
    };
    replace(
      docs,
      h(
        'div',
        { class: 'db-tools' },
        h('button', { class: 'link db-add', text: 'add document', onclick: add }),
        h('button', { class: 'link db-clear', text: 'clear collection', onclick: clear }),
        view.collection.count > view.collection.documents.length
          ? h('span', {
              class: 'muted',
              text: `the last ${view.collection.documents.length} of ${view.collection.count}`,
            })
          : null,
      ),
      adder,
      ...view.collection.documents.map((doc) => {
        const id = String(doc['_id']);
        const row = h('div', { class: 'db-doc', 'data-id': id });
        const edit = (): void => {
          editing = true;
          const { _id: _shown, ...fields } = doc;
          replace(
            row,
            h('div', { class: 'muted', text: `_id ${id}` }),
            documentEditor(
              pretty(fields),
              (text) => databaseCall('PUT', path('collections', name, id), text),
              closeEditor,
            ),
          );
        };
        const remove = (): void =>
          void attempt(() => databaseCall('DELETE', path('collections', name, id)), `deleted ${id} from ${name}`);
        replace(
          row,
          h('pre', { text: pretty(doc) }),
          // Apart on screen and in the text (a reader or a copy gets "edit · delete").
          h(
            'div',
            { class: 'db-doc-tools' },
            h('button', { class: 'link db-edit', text: 'edit', onclick: edit }),
            h('span', { class: 'muted', 'aria-hidden': 'true', text: ' · ' }),
            h('button', { class: 'link db-delete', text: 'delete', onclick: remove }),
          ),
        );
        return row;
      }),
    );
  };

  const render = (view: DatabaseView): void => {
    if (view.collections.length === 0) {
      replace(list, h('li', { class: 'muted', text: 'no collections yet (dySDK.database())' }));
    } else {
      replace(
        list,
        ...view.collections.map((c) =>
          h(
            'li',
            {},
            h('button', {
              class: c.name === picked ? 'link active' : 'link',
              text: `${c.name} (${c.count})`,
              onclick: () => {
                picked = picked === c.name ? undefined : c.name;
                editing = false;
                void refresh();
              },
            }),
          ),
        ),
      );
    }
    renderDocs(view);
  };

  const refresh = async (): Promise<void> => {
    const query = picked === undefined ? '' : `?collection=${encodeURIComponent(picked)}`;
    try {
      const res = await fetch(`${API}/database${query}`);
      if (!res.ok) throw new Error(`${API}/database answered ${res.status}`);
      render((await res.json()) as DatabaseView);
    } catch (error) {
      replace(list, h('li', { class: 'muted', text: (error as Error).message }));
    }
  };
  const soon = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => void refresh(), REFRESH_DELAY_MS);
  };

  void refresh();
  return { requestSeen: soon, changed: soon };
}
