/**
 * The database stand-in's files: one JSON array of documents per collection in
 * `<dataDir>/database/<collection>.json`. Each operation reads the file, changes it and writes
 * it atomically, one operation at a time per process, so the console page and other processes
 * (a restarted dev server, `cloudfn start` workers) see whole files. Two processes writing the
 * same collection at the same instant may lose one write: this is a development store.
 * A `Date` is written as `{ "$date": "<ISO time>" }` (MongoDB's extended JSON) and read back as
 * a `Date`, so dates keep their type, sort as dates and compare with `_.gt(new Date())`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../media-api/state/atomic-file.js';
import { platformError } from '../errors.js';

/** A stored document; `_id` is always a string. */
export type StoredDoc = Record<string, unknown> & { _id: string };

/** Writes a `Date` as `{ $date }`: the replacer sees the Date itself through `this[key]`. */
function dateReplacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Date ? { $date: Number.isNaN(raw.getTime()) ? null : raw.toISOString() } : value;
}

/** Reads `{ $date: <ISO time> }`, and nothing else, as a `Date`. */
function dateReviver(_key: string, value: unknown): unknown {
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

  private file(collection: string): string {
    return join(this.dir, `${collection}.json`);
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
   * Runs `change` on the documents of `collection` after every earlier operation of this
   * process, and writes what it returns (unless it returns undefined: nothing changed).
   * @example await store.change('todos', (docs) => [...docs, doc])
   */
  change<T>(collection: string, change: (docs: StoredDoc[]) => { docs?: StoredDoc[]; result: T }): Promise<T> {
    const run = async (): Promise<T> => {
      const { docs, result } = change(this.read(collection));
      if (docs !== undefined) {
        await mkdir(this.dir, { recursive: true });
        await writeFileAtomic(this.file(collection), JSON.stringify(docs, dateReplacer, 1));
      }
      return result;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
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
