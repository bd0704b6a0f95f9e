/**
 * `db.command` of the database stand-in, and the translation of CloudBase-style queries and
 * updates into the MongoDB language that mingo runs. Commands are plain descriptions: the
 * query operators (eq, neq, gt, gte, lt, lte, in, nin, exists, and, or, nor) become `$eq`… and
 * the update operators (set, remove, inc, mul, push, pop, shift, unshift, pull, addToSet)
 * become `$set`, `$unset`, `$inc`…; `aggregate` holds the expressions of aggregation stages.
 */
import { platformError } from '../errors.js';
import { createAggregateCommand } from './aggregate-operators.js';
import { guarded } from './not-emulated.js';

type Mongo = Record<string, unknown>;

/** A query operator on one field, chainable with `.and()` / `.or()`. */
export class QueryCommand {
  constructor(
    /** One MongoDB condition per alternative, all of which must hold (`and`) or any (`or`). */
    readonly logic: '$and' | '$or',
    readonly conditions: readonly (Mongo | QueryCommand)[],
  ) {}
  /** Both this and `other` hold. */
  and(other: QueryCommand | Mongo): QueryCommand {
    return new QueryCommand('$and', [this, other]);
  }
  /** This or `other` holds. */
  or(other: QueryCommand | Mongo): QueryCommand {
    return new QueryCommand('$or', [this, other]);
  }
}

/** A logical operator over whole queries: `_.or([{ a: 1 }, { b: 2 }])`. */
export class LogicCommand {
  constructor(
    readonly logic: '$and' | '$or' | '$nor',
    readonly queries: readonly unknown[],
  ) {}
}

/** An update operator on one field. */
export class UpdateCommand {
  constructor(
    readonly operator: string,
    readonly value: unknown,
  ) {}
}

const field = (operator: string) => (value: unknown) => new QueryCommand('$and', [{ [operator]: value }]);
const update = (operator: string) => (value?: unknown) => new UpdateCommand(operator, value);

function list(name: string, values: unknown): unknown[] {
  if (!Array.isArray(values))
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      `db.command.${name}`,
      `takes an array, got ${JSON.stringify(values)}`,
    );
  return values;
}

/** Queries joined by a logic command: `_.or([q1, q2])` or `_.or(q1, q2)`. */
function logic(name: 'and' | 'or' | 'nor', args: unknown[]): LogicCommand | QueryCommand {
  const queries = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  // `_.and(_.gt(1), _.lt(5))` on one field is a field command.
  if (name !== 'nor' && queries.length > 0 && queries.every((q) => q instanceof QueryCommand))
    return new QueryCommand(name === 'and' ? '$and' : '$or', queries as QueryCommand[]);
  return new LogicCommand(`$${name}`, queries);
}

/**
 * The `db.command` object.
 * @example const _ = db.command; await db.collection('todos').where({ done: _.neq(true), n: _.gt(2) }).get()
 */
export function createCommand() {
  return {
    eq: field('$eq'),
    neq: field('$ne'),
    gt: field('$gt'),
    gte: field('$gte'),
    lt: field('$lt'),
    lte: field('$lte'),
    in: (values: unknown) => field('$in')(list('in', values)),
    nin: (values: unknown) => field('$nin')(list('nin', values)),
    exists: (value: boolean) => field('$exists')(value),
    size: field('$size'),
    all: (values: unknown) => field('$all')(list('all', values)),
    and: (...args: unknown[]) => logic('and', args),
    or: (...args: unknown[]) => logic('or', args),
    nor: (...args: unknown[]) => logic('nor', args),
    set: update('$set'),
    remove: () => new UpdateCommand('$unset', ''),
    inc: update('$inc'),
    mul: update('$mul'),
    min: update('$min'),
    max: update('$max'),
    push: (values: unknown) => new UpdateCommand('$push', Array.isArray(values) ? values : [values]),
    unshift: (values: unknown) => new UpdateCommand('$unshift', Array.isArray(values) ? values : [values]),
    pop: () => new UpdateCommand('$pop', 1),
    shift: () => new UpdateCommand('$pop', -1),
    pull: update('$pull'),
    addToSet: update('$addToSet'),
    /** The expressions of aggregation stages: `$.sum('$sales')`. */
    aggregate: guarded('db.command.aggregate', createAggregateCommand()),
  };
}

/** The `db.command` type. */
export type Command = ReturnType<typeof createCommand>;

/** A plain object (not an array, Date, RegExp or command): CloudBase reads it as nested fields. */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function fieldCondition(path: string, command: QueryCommand): Mongo {
  const parts = command.conditions.map((c) => (c instanceof QueryCommand ? fieldCondition(path, c) : { [path]: c }));
  return parts.length === 1 ? parts[0]! : { [command.logic]: parts };
}

function flattenQuery(value: Record<string, unknown>, prefix: string, out: Mongo[]): void {
  for (const [key, item] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (item instanceof QueryCommand) out.push(fieldCondition(path, item));
    else if (item instanceof LogicCommand || item instanceof UpdateCommand)
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        `where() field ${path}`,
        'takes a value or a query command (eq, gt, in…); put _.and/_.or around whole queries',
      );
    else if (isPlain(item)) flattenQuery(item, path, out);
    else out.push({ [path]: item === undefined ? null : item });
  }
}

/**
 * A CloudBase-style query as a MongoDB query.
 * @example toMongoQuery({ age: _.gt(18), tags: _.in(['a']) }) // { $and: [{ age: { $gt: 18 } }, { tags: { $in: ['a'] } }] }
 */
export function toMongoQuery(query: unknown): Mongo {
  if (query instanceof LogicCommand) return { [query.logic]: query.queries.map(toMongoQuery) };
  if (!isPlain(query))
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      'where()',
      `takes an object such as { done: false }, got ${JSON.stringify(query)}`,
    );
  const clauses: Mongo[] = [];
  flattenQuery(query, '', clauses);
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? clauses[0]! : { $and: clauses };
}

function flattenUpdate(value: Record<string, unknown>, prefix: string, out: Record<string, Mongo>): void {
  for (const [key, item] of Object.entries(value)) {
    if (prefix === '' && key === '_id') continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const add = (operator: string, operand: unknown): void => {
      out[operator] ??= {};
      out[operator][path] = operand;
    };
    if (item instanceof UpdateCommand) {
      if (item.operator === '$push') add('$push', { $each: item.value });
      else if (item.operator === '$unshift') add('$push', { $each: item.value, $position: 0 });
      else if (item.operator === '$addToSet')
        add('$addToSet', Array.isArray(item.value) ? { $each: item.value } : item.value);
      else if (item.operator === '$pull')
        add('$pull', item.value instanceof QueryCommand ? fieldCondition('x', item.value)['x'] : item.value);
      else add(item.operator, item.value);
    } else if (item instanceof QueryCommand || item instanceof LogicCommand)
      throw platformError(
        'PLATFORM_SDK_BAD_ARGUMENT',
        `update() field ${path}`,
        'takes a value or an update command (set, inc, push…), not a query command',
      );
    else if (isPlain(item) && Object.keys(item).length > 0) flattenUpdate(item, path, out);
    else add('$set', item);
  }
}

/**
 * A CloudBase-style update as a MongoDB update: plain values and nested objects set only the
 * fields they name (use `_.set(object)` to replace a whole object field).
 * @example toMongoUpdate({ n: _.inc(1), 'a.b': 2 }) // { $inc: { n: 1 }, $set: { 'a.b': 2 } }
 */
export function toMongoUpdate(data: unknown): Record<string, Mongo> {
  if (!isPlain(data))
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      'update()',
      `takes an object such as { done: true }, got ${JSON.stringify(data)}`,
    );
  const out: Record<string, Mongo> = {};
  flattenUpdate(data, '', out);
  return out;
}
