/**
 * `db.serverDate({ offset })` of the database stand-in: a placeholder for "the time at the
 * store when this is written", replaced by a `Date` in add, set, update, where and match.
 * Locally the store and the function share a clock, so the server's time is this process's.
 */
import { platformError } from '../errors.js';

/** A reference to the store's current time, `offset` milliseconds later (or earlier, when negative). */
export class ServerDate {
  constructor(readonly offset: number) {}
}

/**
 * Makes a `ServerDate`, as `db.serverDate()` does.
 * @example db.collection('todos').add({ due: serverDate({ offset: 3_600_000 }) })
 */
export function serverDate(options?: unknown): ServerDate {
  if (options === undefined) return new ServerDate(0);
  const offset = (options as { offset?: unknown } | null)?.offset ?? 0;
  if (typeof options !== 'object' || options === null || typeof offset !== 'number' || !Number.isFinite(offset))
    throw platformError(
      'PLATFORM_SDK_BAD_ARGUMENT',
      'serverDate()',
      `takes { offset: <milliseconds> }, got ${JSON.stringify(options)}`,
    );
  return new ServerDate(offset);
}

/**
 * `value` with every `ServerDate` in it (in plain objects and arrays, at any depth) replaced by
 * the `Date` it stands for at `now`; other values are kept as they are, objects copied only
 * where something changed.
 * @example resolveServerDates({ at: serverDate() }, Date.now()) // { at: Date }
 */
export function resolveServerDates<T>(value: T, now: number): T {
  if (value instanceof ServerDate) return new Date(now + value.offset) as T;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => resolveServerDates(item, now));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  if (typeof value !== 'object' || value === null) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    // Commands (eq, set, push…) carry their operand in `value` or `conditions`: resolve inside.
    return resolveInCommand(value, now);
  }
  let changed = false;
  const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
  for (const [key, item] of Object.entries(value)) {
    const resolved = resolveServerDates(item, now);
    if (resolved !== item) changed = true;
    out[key] = resolved;
  }
  return (changed ? out : value) as T;
}

/** A command object (a class instance) with its operands resolved, keeping its class. */
function resolveInCommand<T extends object>(command: T, now: number): T {
  const fields = Object.entries(command);
  const resolved = fields.map(([key, item]) => [key, resolveServerDates(item, now)] as const);
  if (resolved.every(([key, item]) => item === (command as Record<string, unknown>)[key])) return command;
  const copy = Object.create(Object.getPrototypeOf(command) as object) as Record<string, unknown>;
  for (const [key, item] of resolved) copy[key] = item;
  return copy as T;
}
