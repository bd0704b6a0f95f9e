/**
 * `db.command.aggregate` (the `$` of CloudBase-style aggregation) in the database stand-in:
 * each operator makes its MongoDB expression, `$.avg('$sales')` → `{ $avg: '$sales' }`, which
 * mingo evaluates in `group`, `project`, `addFields` and the other stages. The names are
 * CloudBase's, which are MongoDB's without the `$`.
 */

/** The operators, by family; every one takes its MongoDB operand as its one argument. */
const OPERATORS = [
  // accumulators
  'addToSet',
  'avg',
  'first',
  'last',
  'max',
  'mergeObjects',
  'min',
  'push',
  'stdDevPop',
  'stdDevSamp',
  'sum',
  // arithmetic
  'abs',
  'add',
  'ceil',
  'divide',
  'exp',
  'floor',
  'ln',
  'log',
  'log10',
  'mod',
  'multiply',
  'pow',
  'sqrt',
  'subtract',
  'trunc',
  // arrays
  'arrayElemAt',
  'arrayToObject',
  'concatArrays',
  'filter',
  'in',
  'indexOfArray',
  'isArray',
  'map',
  'objectToArray',
  'range',
  'reduce',
  'reverseArray',
  'size',
  'slice',
  'zip',
  // booleans and comparisons
  'and',
  'not',
  'or',
  'cmp',
  'eq',
  'gt',
  'gte',
  'lt',
  'lte',
  'neq',
  // conditions
  'cond',
  'ifNull',
  'switch',
  // dates
  'dateFromParts',
  'dateFromString',
  'dateToString',
  'dayOfMonth',
  'dayOfWeek',
  'dayOfYear',
  'hour',
  'isoDayOfWeek',
  'isoWeek',
  'isoWeekYear',
  'millisecond',
  'minute',
  'month',
  'second',
  'week',
  'year',
  // literals, objects, sets
  'literal',
  'let',
  'allElementsTrue',
  'anyElementTrue',
  'setDifference',
  'setEquals',
  'setIntersection',
  'setIsSubset',
  'setUnion',
  // strings
  'concat',
  'indexOfBytes',
  'indexOfCP',
  'split',
  'strLenBytes',
  'strLenCP',
  'strcasecmp',
  'substr',
  'substrBytes',
  'substrCP',
  'toLower',
  'toUpper',
  'trim',
  'ltrim',
  'rtrim',
] as const;

/** The name of an aggregation operator. */
export type AggregateOperatorName = (typeof OPERATORS)[number];

/** `db.command.aggregate`: one expression maker per operator. */
export type AggregateCommand = Record<AggregateOperatorName, (operand: unknown) => Record<string, unknown>>;

/** CloudBase names that differ from MongoDB's. */
const MONGO_NAME: Partial<Record<AggregateOperatorName, string>> = { neq: 'ne' };

/**
 * The `db.command.aggregate` object.
 * @example const $ = createAggregateCommand(); $.sum('$sales') // { $sum: '$sales' }
 */
export function createAggregateCommand(): AggregateCommand {
  const command = {} as AggregateCommand;
  for (const name of OPERATORS) {
    const operator = `$${MONGO_NAME[name] ?? name}`;
    command[name] = (operand: unknown) => ({ [operator]: operand });
  }
  return command;
}
