/**
 * What the dev console shows of the database stand-in: the collections with their sizes, and
 * the documents of one (at most `BROWSE_LIMIT`, newest last as stored), dates as `{"$date": …}`
 * as the store keeps them, so what the console edits goes back unchanged.
 */
import { checkCollectionName, dateReplacer, DocumentStore } from './store.js';
import type { DatabaseView } from './protocol.js';

/** The most documents one console answer carries. */
export const BROWSE_LIMIT = 500;

/**
 * The collections of the database in `dataDir`, and the documents of `collection` when given.
 * @example browseDatabase('/srv/app/.cloudfn/platform', 'todos').collection?.documents
 */
export function browseDatabase(dataDir: string, collection?: string | null): DatabaseView {
  const store = new DocumentStore(dataDir);
  const view: DatabaseView = {
    dir: store.dir,
    collections: store.collections().map((name) => ({ name, count: store.read(name).length })),
  };
  if (collection !== undefined && collection !== null && collection !== '') {
    const docs = store.read(checkCollectionName(collection));
    const documents = JSON.parse(JSON.stringify(docs.slice(-BROWSE_LIMIT), dateReplacer)) as Record<string, unknown>[];
    view.collection = { name: collection, count: docs.length, documents };
  }
  return view;
}

/** Declared in the console's protocol, which the page imports too. */
export type { DatabaseView };
