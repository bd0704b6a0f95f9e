/**
 * `dySDK.database()` locally: the CloudBase-style document API (collection, add, doc, where,
 * orderBy, skip, limit, field, get, update, set, remove, count, aggregate, serverDate) on
 * `DocumentStore`, with mingo running the query and update language. Result shapes follow CloudBase's server SDK: `add`
 * → `{ _id, id }`, `get` → `{ data: [...] }` (an array for a document too), `update` →
 * `{ updated }`, `set` → `{ updated, upsertedId }`, `remove` → `{ deleted }`, `count` →
 * `{ total }`, each with a `requestId`.
 */
import { randomBytes } from 'node:crypto';
import { platformError } from '../errors.js';
import { Aggregate } from './aggregate.js';
import { createCommand, toMongoQuery, toMongoUpdate, type Command } from './command.js';
import { guarded } from './not-emulated.js';
import { resolveServerDates, type ServerDate, serverDate } from './server-date.js';
import type { DocumentStore, StoredDoc } from './store.js';
import { loadMingo } from './mingo.js';

/** `get()` answers at most this many documents unless `limit` says otherwise (CloudBase's server default). */
export const DEFAULT_LIMIT = 100;
/** The largest `limit` (CloudBase's server maximum). */
export const MAX_LIMIT = 1000;

/** mingo, imported on the first database call (mingo.ts). */
const loadEngine = loadMingo;

const requestId = (): string => randomBytes(8).toString('hex');
const newId = (): string => randomBytes(16).toString('hex');
const copy = <T>(value: T): T => structuredClone(value);
/** `value` with each `db.serverDate()` in it made the current time. */
const dated = <T>(value: T): T => resolveServerDates(value, Date.now());

function plainObject(what: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw platformError('PLATFORM_SDK_BAD_ARGUMENT', what, `takes an object, got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** The data of set() and update(): a non-empty object (156401 `参数必须为非空对象` otherwise). */
function fieldsOf(operation: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0)
    throw platformError('PLATFORM_DB_EMPTY_DATA', operation, JSON.stringify(value) ?? String(value));
  return value as Record<string, unknown>;
}

/** Refuses data that would change `_id` (156401 `_id值不能更新`); the document's own `_id` unchanged passes. */
function keepsId(operation: string, data: Record<string, unknown>, id?: string): void {
  if ('_id' in data && (id === undefined || String(data['_id']) !== id))
    throw platformError('PLATFORM_DB_ID_UPDATE', operation, JSON.stringify(data['_id']) ?? String(data['_id']));
}

function count(what: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max)
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      what,
      `takes an integer from 0 to ${max}, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** What a chain of where/orderBy/skip/limit/field has gathered. */
interface QueryState {
  filter: Record<string, unknown>;
  sort: [string, 1 | -1][];
  skip: number;
  limit: number | undefined;
  projection: Record<string, unknown> | undefined;
}

/** A query on one collection; every method returns a new query. */
export class CollectionQuery {
  constructor(
    protected readonly store: DocumentStore,
    readonly name: string,
    protected readonly state: QueryState,
  ) {}

  private with(change: Partial<QueryState>): CollectionQuery {
    return guarded(
      `collection('${this.name}')`,
      new CollectionQuery(this.store, this.name, { ...this.state, ...change }),
    );
  }

  /** Keeps the documents matching `query` (and any earlier `where`). */
  where(query: unknown): CollectionQuery {
    const mongo = toMongoQuery(dated(query));
    const filter = Object.keys(this.state.filter).length === 0 ? mongo : { $and: [this.state.filter, mongo] };
    return this.with({ filter });
  }
  /** Sorts by `field`, `'asc'` or `'desc'`; later calls sort ties. */
  orderBy(field: string, order: 'asc' | 'desc' = 'asc'): CollectionQuery {
    if (typeof field !== 'string' || field === '')
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        'orderBy field',
        `must be a field name, got ${JSON.stringify(field)}`,
      );
    if (order !== 'asc' && order !== 'desc')
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        'orderBy order',
        `must be 'asc' or 'desc', got ${JSON.stringify(order)}`,
      );
    return this.with({ sort: [...this.state.sort, [field, order === 'asc' ? 1 : -1]] });
  }
  /** Skips the first `n` matches. */
  skip(n: number): CollectionQuery {
    return this.with({ skip: count('skip', n, Number.MAX_SAFE_INTEGER) });
  }
  /** Answers at most `n` documents (at most 1000). */
  limit(n: number): CollectionQuery {
    return this.with({ limit: count('limit', n, MAX_LIMIT) });
  }
  /** Which fields to answer: `{ title: true }` or `{ secret: false }`. */
  field(projection: unknown): CollectionQuery {
    const fields = plainObject('field()', projection);
    return this.with({ projection: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ? 1 : 0])) });
  }

  private async matches(docs: StoredDoc[]): Promise<StoredDoc[]> {
    const { Query } = await loadEngine();
    const query = new Query(this.state.filter);
    return docs.filter((doc) => query.test(doc));
  }

  /** The matching documents: `{ data, requestId }`. */
  async get(): Promise<{ data: Record<string, unknown>[]; requestId: string }> {
    const { find } = await loadEngine();
    let cursor = find(this.store.read(this.name), this.state.filter, this.state.projection);
    if (this.state.sort.length > 0) cursor = cursor.sort(Object.fromEntries(this.state.sort));
    if (this.state.skip > 0) cursor = cursor.skip(this.state.skip);
    cursor = cursor.limit(this.state.limit ?? DEFAULT_LIMIT);
    return { data: copy(cursor.all() as Record<string, unknown>[]), requestId: requestId() };
  }

  /** How many documents match: `{ total, requestId }`. */
  async count(): Promise<{ total: number; requestId: string }> {
    return { total: (await this.matches(this.store.read(this.name))).length, requestId: requestId() };
  }

  private wholeQueryOnly(operation: string): void {
    if (this.state.skip > 0 || this.state.limit !== undefined || this.state.sort.length > 0 || this.state.projection)
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        `${operation}()`,
        'applies to every matching document and takes no skip, limit, orderBy or field; narrow it with where()',
      );
  }

  /** Updates every matching document: `{ updated, requestId }`. */
  async update(data: unknown): Promise<{ updated: number; requestId: string }> {
    this.wholeQueryOnly('update');
    keepsId('update', fieldsOf('update', data));
    const modifier = toMongoUpdate(dated(data));
    const { Query, update } = await loadEngine();
    const query = new Query(this.state.filter);
    const updated = await this.store.change(this.name, (docs) => {
      let changed = 0;
      for (const doc of docs) if (query.test(doc) && update(doc, modifier).length > 0) changed++;
      return { docs: changed > 0 ? docs : undefined, result: changed };
    });
    return { updated, requestId: requestId() };
  }

  /** Removes every matching document: `{ deleted, requestId }`. */
  async remove(): Promise<{ deleted: number; requestId: string }> {
    this.wholeQueryOnly('remove');
    const { Query } = await loadEngine();
    const query = new Query(this.state.filter);
    const deleted = await this.store.change(this.name, (docs) => {
      const kept = docs.filter((doc) => !query.test(doc));
      const gone = docs.length - kept.length;
      return { docs: gone > 0 ? kept : undefined, result: gone };
    });
    return { deleted, requestId: requestId() };
  }
}

/** One document by its `_id`. */
export class DocumentRef {
  constructor(
    private readonly store: DocumentStore,
    readonly collection: string,
    private readonly given: unknown,
  ) {}

  /**
   * The `_id`, checked when an operation runs, so `doc('').get()` rejects as on the platform
   * (156401 `docId必须为非空字符串`); numbers are taken as their text.
   */
  private idFor(operation: string): string {
    const id = this.given;
    if ((typeof id !== 'string' && typeof id !== 'number') || id === '' || Number.isNaN(id))
      throw platformError('PLATFORM_DB_BAD_DOC_ID', operation, JSON.stringify(id) ?? String(id));
    return String(id);
  }

  /** The `_id` this refers to, as given to `doc(id)`. */
  get id(): string {
    return String(this.given);
  }

  /** `{ data: [document] }`, or `{ data: [] }` when there is none with this `_id`. */
  async get(): Promise<{ data: Record<string, unknown>[]; requestId: string }> {
    const id = this.idFor('get');
    const doc = this.store.read(this.collection).find((d) => d._id === id);
    return { data: doc === undefined ? [] : [copy(doc)], requestId: requestId() };
  }

  /** Changes the fields `data` names: `{ updated: 0 | 1 }`. */
  async update(data: unknown): Promise<{ updated: number; requestId: string }> {
    const id = this.idFor('update');
    keepsId('update', fieldsOf('update', data), id);
    const modifier = toMongoUpdate(dated(data));
    const { update } = await loadEngine();
    const updated = await this.store.change(this.collection, (docs) => {
      const doc = docs.find((d) => d._id === id);
      const changed = doc !== undefined && update(doc, modifier).length > 0 ? 1 : 0;
      return { docs: changed ? docs : undefined, result: changed };
    });
    return { updated, requestId: requestId() };
  }

  /** Replaces the document with `data` (creating it when absent): `{ updated, upsertedId }`. */
  async set(data: unknown): Promise<{ updated: number; upsertedId: string | null; requestId: string }> {
    const id = this.idFor('set');
    const given = fieldsOf('set', data);
    keepsId('set', given, id);
    const { _id: _same, ...fields } = copy(dated(given));
    const doc: StoredDoc = { ...fields, _id: id };
    const result = await this.store.change<{ updated: number; upsertedId: string | null }>(this.collection, (docs) => {
      const at = docs.findIndex((d) => d._id === id);
      if (at === -1) return { docs: [...docs, doc], result: { updated: 0, upsertedId: id } };
      docs[at] = doc;
      return { docs, result: { updated: 1, upsertedId: null } };
    });
    return { ...result, requestId: requestId() };
  }

  /** Removes the document: `{ deleted: 0 | 1 }`. */
  async remove(): Promise<{ deleted: number; requestId: string }> {
    const id = this.idFor('remove');
    const deleted = await this.store.change(this.collection, (docs) => {
      const kept = docs.filter((d) => d._id !== id);
      return { docs: kept.length < docs.length ? kept : undefined, result: docs.length - kept.length };
    });
    return { deleted, requestId: requestId() };
  }
}

/** One collection: a query over all its documents, plus `add` and `doc`. */
export class Collection extends CollectionQuery {
  constructor(store: DocumentStore, name: string) {
    // A bad name is refused when an operation runs (the store checks it): collection('').get() rejects.
    super(store, name, { filter: {}, sort: [], skip: 0, limit: undefined, projection: undefined });
  }

  /** Adds a document (its `_id`, when given, is kept): `{ _id, id, requestId }`. */
  async add(data: unknown): Promise<{ _id: string; id: string; requestId: string }> {
    const fields = copy(dated(plainObject('add()', data)));
    const id = fields['_id'] === undefined ? newId() : String(fields['_id']);
    const doc: StoredDoc = { ...fields, _id: id };
    await this.store.change(this.name, (docs) => {
      if (docs.some((d) => d._id === id))
        throw platformError(
          'PLATFORM_SDK_BAD_ARGUMENT',
          'add()',
          `found a document with _id ${JSON.stringify(id)} already; use doc(id).set() to replace it`,
        );
      return { docs: [...docs, doc], result: undefined };
    });
    return { _id: id, id, requestId: requestId() };
  }

  /** An aggregation pipeline over this collection; `end()` runs it. */
  aggregate(): Aggregate {
    return guarded(`collection('${this.name}').aggregate()`, new Aggregate(this.store, this.name, []));
  }

  /** The document with `_id` `id`. */
  doc(id: unknown): DocumentRef {
    return guarded(`doc('${String(id)}')`, new DocumentRef(this.store, this.name, id));
  }
}

/** The database: `collection(name)`, `command` and `serverDate()`. */
export interface Database {
  collection(name: string): Collection;
  readonly command: Command;
  /** The store's time when the document is written, `offset` ms later: for add, set, update and where. */
  serverDate(options?: { offset?: number }): ServerDate;
}

/**
 * The database over `store`.
 * @example const db = createDatabase(new DocumentStore('.cloudfn/platform')); await db.collection('todos').add({ title: 'a' })
 */
export function createDatabase(store: DocumentStore): Database {
  const command = createCommand();
  return guarded('database()', {
    collection: (name: string) => guarded(`collection('${name}')`, new Collection(store, name)),
    command: guarded('db.command', command),
    serverDate,
  });
}
