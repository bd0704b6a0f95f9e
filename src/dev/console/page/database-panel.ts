/**
 * The console's view of the server SDK stand-in's database (`/_cloudfn/api/database`): the
 * collections with their sizes, and the documents of the one picked, refreshed after requests.
 */
import { API } from './api.js';
import { byId, h, replace } from './dom.js';
import type { DatabaseView } from '../../../platform/sdk/protocol.js';

/** Requests answered close together refresh the panel once. */
const REFRESH_DELAY_MS = 300;

/** What main.ts drives. */
export interface DatabasePanel {
  /** A request was answered: its function may have written. */
  requestSeen(): void;
}

/**
 * Fills `#database` and `#database-docs`, and keeps them current.
 * @example const database = startDatabasePanel(); database.requestSeen();
 */
export function startDatabasePanel(): DatabasePanel {
  const list = byId('database');
  const docs = byId('database-docs');
  let picked: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

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
                void refresh();
              },
            }),
          ),
        ),
      );
    }
    docs.hidden = view.collection === undefined;
    if (view.collection !== undefined)
      replace(docs, h('pre', { text: JSON.stringify(view.collection.documents, null, 2) }));
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

  void refresh();
  return {
    requestSeen() {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => void refresh(), REFRESH_DELAY_MS);
    },
  };
}
