/**
 * The whole store as one JSON file, both ways: `exportStore` (collection → documents, dates as
 * MongoDB extended JSON `{"$date": …}` as the store keeps them), `importStore` (the collections
 * a dump names replaced, or upserted by `_id` with `merge`), `resetStore`, and `parseDump`,
 * which checks a whole dump before anything is written and names the collection and document
 * at fault. Each runs under the store's lock, so a running dev's writes are never lost.
 */
import { randomBytes } from 'node:crypto';
import { platformError } from '../../errors.js';
import { checkCollectionName, dateReplacer, dateReviver, DocumentStore, type StoredDoc } from '../store.js';

/** A dump: each collection's documents, `_id` always a string. */
export type StoreDump = Record<string, StoredDoc[]>;

/** What an import or a reset changed. */
export interface StoreChange {
  /** Each collection touched and how many documents it holds afterwards. */
  collections: { name: string; count: number }[];
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);

/** The first invalid date inside `value` (revived from `{ $date }` or given as a Date), as its path. */
function badDate(value: unknown, path: string): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = badDate(item, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      const found = badDate(item, path === '' ? key : `${path}.${key}`);
      if (found !== undefined) return found;
    }
  return undefined;
}

/**
 * Checks a dump already parsed (with `{ $date }` revived as Dates, or Dates given in code) and
 * answers it with every `_id` a string (generated when missing). Refuses, naming `source`, the
 * collection and the document, anything the store would not keep.
 * @example checkDump({ todos: [{ title: 'a' }] }, 'seed.json')
 */
export function checkDump(data: unknown, source: string): StoreDump {
  const refuse = (detail: string): never => {
    throw platformError('PLATFORM_DB_BAD_DUMP', source, detail);
  };
  if (!isPlainObject(data))
    refuse(
      `a dump is a JSON object of collections, { "todos": [ { "_id": "a", ... } ] }, got ${Array.isArray(data) ? 'an array' : JSON.stringify(data)}`,
    );
  const dump: StoreDump = {};
  for (const [name, docs] of Object.entries(data as Record<string, unknown>)) {
    try {
      checkCollectionName(name);
    } catch (error) {
      refuse(`collection ${JSON.stringify(name)}: ${(error as Error).message}`);
    }
    if (!Array.isArray(docs)) refuse(`collection "${name}" must be an array of documents, got ${JSON.stringify(docs)}`);
    const seen = new Set<string>();
    dump[name] = (docs as unknown[]).map((doc, index) => {
      const where = `collection "${name}", document ${index}`;
      if (!isPlainObject(doc)) refuse(`${where} must be an object, got ${JSON.stringify(doc)}`);
      const fields = doc as Record<string, unknown>;
      const id = fields['_id'];
      if (id !== undefined && (typeof id !== 'string' || id === ''))
        refuse(`${where}: _id must be a non-empty string, got ${JSON.stringify(id)}`);
      const at = `${where}${id === undefined ? '' : ` (_id ${JSON.stringify(id)})`}`;
      const date = badDate(fields, '');
      if (date !== undefined)
        refuse(`${at}: ${date} is not a valid date; write { "$date": "2026-01-31T08:00:00.000Z" }`);
      const _id = (id as string | undefined) ?? randomBytes(16).toString('hex');
      if (seen.has(_id)) refuse(`${at}: another document of the collection has this _id`);
      seen.add(_id);
      return { ...fields, _id };
    });
  }
  return dump;
}

/**
 * Parses and checks the text of a dump file.
 * @example parseDump(readFileSync('seed.json', 'utf8'), 'seed.json')
 */
export function parseDump(text: string, source: string): StoreDump {
  let data: unknown;
  try {
    data = JSON.parse(text, dateReviver);
  } catch (error) {
    throw platformError('PLATFORM_DB_BAD_DUMP', source, `not JSON (${(error as Error).message})`);
  }
  return checkDump(data, source);
}

/**
 * Every collection of the store in `dataDir`, read under the lock (one consistent moment).
 * @example const dump = await exportStore('.cloudfn/platform');
 */
export function exportStore(dataDir: string): Promise<StoreDump> {
  const store = new DocumentStore(dataDir);
  return store.locked(async () => Object.fromEntries(store.collections().map((name) => [name, store.read(name)])));
}

/**
 * A dump as the text of a file: 2-space JSON, dates as `{"$date": …}`.
 * @example writeFileSync('out.json', formatDump(await exportStore(dir)))
 */
export function formatDump(dump: StoreDump): string {
  return `${JSON.stringify(dump, dateReplacer, 2)}\n`;
}

/**
 * Writes a checked dump into the store in `dataDir`: each collection it names is replaced, or
 * with `merge`, each of its documents replaces the one with its `_id` or is added. Collections
 * it does not name are kept.
 * @example await importStore(dir, parseDump(text, 'seed.json'), { merge: false })
 */
export function importStore(dataDir: string, dump: StoreDump, options: { merge: boolean }): Promise<StoreChange> {
  const store = new DocumentStore(dataDir);
  return store.locked(async () => {
    // Everything is computed before the first write, so a bad collection file fails the import whole.
    const next = Object.entries(dump).map(([name, docs]): [string, StoredDoc[]] => {
      if (!options.merge) return [name, docs];
      const merged = store.read(name);
      const at = new Map(merged.map((doc, i) => [doc._id, i]));
      for (const doc of docs) {
        const i = at.get(doc._id);
        if (i === undefined) at.set(doc._id, merged.push(doc) - 1);
        else merged[i] = doc;
      }
      return [name, merged];
    });
    for (const [name, docs] of next) await store.write(name, docs);
    return { collections: next.map(([name, docs]) => ({ name, count: docs.length })) };
  });
}

/**
 * Empties the store in `dataDir` (every collection, or those named).
 * @example await resetStore(dir)
 */
export function resetStore(dataDir: string, only?: string[]): Promise<StoreChange> {
  const store = new DocumentStore(dataDir);
  return store.locked(async () => {
    const names = only ?? store.collections();
    for (const name of names) await store.drop(name);
    return { collections: names.map((name) => ({ name, count: 0 })) };
  });
}
