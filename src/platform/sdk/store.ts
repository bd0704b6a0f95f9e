/**
 * The database stand-in's files: one JSON array of documents per collection in
 * `<dataDir>/database/<collection>.json`. Each operation reads the file, changes it and writes
 * it atomically under the store's lock (database/lock.ts), one operation at a time per process
 * and across processes, so the console page and other processes (`cloudfn db`, a restarted dev
 * server, `cloudfn start` workers) see whole files and no write is lost to another's.
 * A `Date` is written as `{ "$date": "<ISO time>" }` (MongoDB's extended JSON) and read back as
 * a `Date`, so dates keep their type, sort as dates and compare with `_.gt(new Date())`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../media-api/state/atomic-file.js';
import { platformError } from '../errors.js';
import { withStoreLock } from './database/lock.js';

/** A stored document; `_id` is always a string. */
export type StoredDoc = Record<string, unknown> & { _id: string };

/** Writes a `Date` as `{ $date }`: the replacer sees the Date itself through `this[key]`. */
export function dateReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Date ? { $date: Number.isNaN(raw.getTime()) ? null : raw.toISOString() } : value;
}

/** Reads `{ $date: <ISO time> }`, and nothing else, as a `Date`. */
export function dateReviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const date = (value as { $date?: unknown }).$date;
  if (keys.length !== 1 || keys[0] !== '$date' || (typeof date !== 'string' && date !== null)) return value;
  return new Date(date === null ? Number.NaN : date);
}

/** Collection names: letters, digits, `_` and `-`, as file names on every system. */
const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Checks a collection name.
 * @example checkCollectionName('todos') // 'todos'
 */
export function checkCollectionName(name: unknown): string {
  if (name === '' || name === undefined || name === null)
    throw platformError('PLATFORM_DB_COLLECTION_REQUIRED', JSON.stringify(name) ?? 'undefined');
  if (typeof name !== 'string' || !COLLECTION_NAME.test(name))
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      'collection name',
      `must be 1 to 100 letters, digits, _ or -, got ${JSON.stringify(name)}`,
    );
  return name;
}

/** The collections of one data folder. */
export class DocumentStore {
  readonly dir: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'database');
  }

  /** The file of `collection`; a bad name is refused here, so every operation refuses it (156401 when empty). */
  private file(collection: string): string {
    return join(this.dir, `${checkCollectionName(collection)}.json`);
  }

  /**
   * The documents of `collection` as stored (an empty list when it does not exist yet).
   * @example store.read('todos')
   */
  read(collection: string): StoredDoc[] {
    const file = this.file(collection);
    if (!existsSync(file)) return [];
    let docs: unknown;
    try {
      docs = JSON.parse(readFileSync(file, 'utf8'), dateReviver);
    } catch (error) {
      throw platformError('PLATFORM_DATA_CORRUPT', file, (error as Error).message);
    }
    if (!Array.isArray(docs)) throw platformError('PLATFORM_DATA_CORRUPT', file, 'it is not a JSON array of documents');
    return docs as StoredDoc[];
  }

  /**
   * Runs `work` after every earlier operation of this process, holding the store's lock across
   * processes (database/lock.ts): what `change`, an import and a reset run in.
   * @example await store.locked(async () => { await store.write('todos', []); })
   */
  locked<T>(work: () => Promise<T>): Promise<T> {
    const run = (): Promise<T> => withStoreLock(this.dir, work);
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Writes the whole of `collection` (call it inside `locked`).
   * @example await store.write('todos', [{ _id: 'a' }])
   */
  write(collection: string, docs: StoredDoc[]): Promise<void> {
    return writeFileAtomic(this.file(collection), JSON.stringify(docs, dateReplacer, 1));
  }

  /**
   * Removes `collection` and its file (call it inside `locked`).
   * @example await store.drop('todos')
   */
  drop(collection: string): Promise<void> {
    return rm(this.file(collection), { force: true });
  }

  /**
   * Runs `change` on the documents of `collection` under the lock, and writes what it returns
   * (unless it returns undefined: nothing changed).
   * @example await store.change('todos', (docs) => ({ docs: [...docs, doc], result: undefined }))
   */
  change<T>(collection: string, change: (docs: StoredDoc[]) => { docs?: StoredDoc[]; result: T }): Promise<T> {
    return this.locked(async () => {
      const { docs, result } = change(this.read(collection));
      if (docs !== undefined) await this.write(collection, docs);
      return result;
    });
  }

  /**
   * The names of the stored collections, sorted.
   * @example store.collections() // ['scores', 'todos']
   */
  collections(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  }
}
