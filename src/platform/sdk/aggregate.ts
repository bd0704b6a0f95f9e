/**
 * `collection.aggregate()` of the database stand-in: the CloudBase-style stage chain (match,
 * project, addFields, group, sort, skip, limit, count, unwind, lookup, replaceRoot, sample,
 * sortByCount, bucket, bucketAuto) gathered into a MongoDB pipeline that mingo runs on `end()`.
 * `end()` answers `{ data, requestId }`, as CloudBase's server SDK does (its mini-program SDK
 * says `list`). `match` takes the query language of `where` (db.command), the other stages
 * MongoDB's with `db.command.aggregate` expressions.
 */
import { randomBytes } from 'node:crypto';
import { platformError } from '../errors.js';
import { toMongoQuery } from './command.js';
import { loadMingo } from './mingo.js';
import { guarded } from './not-emulated.js';
import { resolveServerDates } from './server-date.js';
import { checkCollectionName, type DocumentStore } from './store.js';

type Stage = Record<string, unknown>;

function objectArgument(stage: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      `aggregate().${stage}()`,
      `takes an object, got ${JSON.stringify(value)}`,
    );
  return value as Record<string, unknown>;
}

function countArgument(stage: string, value: unknown, least: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least)
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      `aggregate().${stage}()`,
      `takes an integer of at least ${least}, got ${JSON.stringify(value)}`,
    );
  return value;
}

function fieldArgument(stage: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      `aggregate().${stage}()`,
      `takes a field name, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** A pipeline on one collection; every stage method returns a new pipeline. */
export class Aggregate {
  constructor(
    private readonly store: DocumentStore,
    readonly collection: string,
    private readonly stages: readonly Stage[],
  ) {}

  private append(stage: Stage): Aggregate {
    return guarded(
      `collection('${this.collection}').aggregate()`,
      new Aggregate(this.store, this.collection, [...this.stages, stage]),
    );
  }

  /** Keeps the documents matching `query` (the language of `where`). */
  match(query: unknown): Aggregate {
    return this.append({ $match: toMongoQuery(resolveServerDates(query, Date.now())) });
  }
  /** Keeps, drops or computes fields: `{ title: 1, total: $.add(['$a', '$b']) }`. */
  project(spec: unknown): Aggregate {
    return this.append({ $project: objectArgument('project', spec) });
  }
  /** Adds computed fields to each document. */
  addFields(spec: unknown): Aggregate {
    return this.append({ $addFields: objectArgument('addFields', spec) });
  }
  /** Groups by `_id`, with accumulators: `{ _id: '$category', n: $.sum(1) }`. */
  group(spec: unknown): Aggregate {
    const group = objectArgument('group', spec);
    if (!('_id' in group))
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        'aggregate().group()',
        'needs an _id (null groups every document)',
      );
    return this.append({ $group: group });
  }
  /** Sorts by the fields given, `1` ascending and `-1` descending. */
  sort(spec: unknown): Aggregate {
    const sort = objectArgument('sort', spec);
    for (const [field, order] of Object.entries(sort))
      if (order !== 1 && order !== -1)
        throw platformError(
          'PLATFORM_SDK_BAD_ARGUMENT',
          `aggregate().sort() field ${field}`,
          `takes 1 or -1, got ${JSON.stringify(order)}`,
        );
    return this.append({ $sort: sort });
  }
  /** Skips the first `n` documents. */
  skip(n: unknown): Aggregate {
    return this.append({ $skip: countArgument('skip', n, 0) });
  }
  /** Passes at most `n` documents on. */
  limit(n: unknown): Aggregate {
    return this.append({ $limit: countArgument('limit', n, 1) });
  }
  /** One document `{ [field]: <how many came in> }`. */
  count(field: unknown): Aggregate {
    return this.append({ $count: fieldArgument('count', field) });
  }
  /** One document per element of an array field: `'$tags'` or `{ path, includeArrayIndex, preserveNullAndEmptyArrays }`. */
  unwind(spec: unknown): Aggregate {
    return this.append({
      $unwind: typeof spec === 'string' ? fieldArgument('unwind', spec) : objectArgument('unwind', spec),
    });
  }
  /** Joins documents of another collection: `{ from, localField, foreignField, as }` or `{ from, let, pipeline, as }`. */
  lookup(spec: unknown): Aggregate {
    const lookup = objectArgument('lookup', spec);
    checkCollectionName(lookup['from']);
    return this.append({ $lookup: lookup });
  }
  /** Replaces each document by the object `newRoot` names. */
  replaceRoot(spec: unknown): Aggregate {
    return this.append({ $replaceRoot: objectArgument('replaceRoot', spec) });
  }
  /** `size` documents picked at random. */
  sample(spec: unknown): Aggregate {
    const size = countArgument('sample', objectArgument('sample', spec)['size'], 1);
    return this.append({ $sample: { size } });
  }
  /** Groups by an expression and counts each group, largest first. */
  sortByCount(expression: unknown): Aggregate {
    return this.append({ $sortByCount: expression });
  }
  /** Puts documents into buckets between the `boundaries` given. */
  bucket(spec: unknown): Aggregate {
    return this.append({ $bucket: objectArgument('bucket', spec) });
  }
  /** Puts documents into `buckets` buckets of about equal size. */
  bucketAuto(spec: unknown): Aggregate {
    return this.append({ $bucketAuto: objectArgument('bucketAuto', spec) });
  }

  /** Runs the pipeline: `{ data, requestId }`. */
  async end(): Promise<{ data: Record<string, unknown>[]; requestId: string }> {
    const { aggregate } = await loadMingo();
    let data: Record<string, unknown>[];
    try {
      data = aggregate(this.store.read(this.collection), [...this.stages], {
        collectionResolver: (name: string) => this.store.read(checkCollectionName(name)),
      }) as Record<string, unknown>[];
    } catch (error) {
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        `collection('${this.collection}').aggregate()`,
        `could not run ${JSON.stringify(this.stages.map((stage) => Object.keys(stage)[0]))}: ${(error as Error).message}`,
      );
    }
    return { data: structuredClone(data), requestId: randomBytes(8).toString('hex') };
  }
}
