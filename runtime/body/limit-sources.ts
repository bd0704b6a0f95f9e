/**
 * Where each limit of a function came from, in words, for the 413 messages: the function's own
 * config, or the global option. Resolved once per function (app.ts), looked up only when a
 * limit is hit, so a request pays nothing for it.
 */
import type { Limits } from '../types.js';

/** Per limit: the phrase naming its source, e.g. `the global option limits.maxBodySize (...)`. */
export type LimitSources = Readonly<Partial<Record<keyof Limits, string>>>;

const names = new WeakMap<Limits, LimitSources>();

/** Records the sources of a function's resolved limits object. */
export function setLimitSources(limits: Limits, limitSources: LimitSources): void {
  names.set(limits, limitSources);
}

/**
 * The source of `key` in `limits`, or the global option when the object was not resolved by an
 * app (a direct `parseBody` call).
 * @example limitSource(fn.limits, 'maxFileSize') // "the function's config.maxFileSize (...)"
 */
export function limitSource(limits: Limits, key: keyof Limits): string {
  return names.get(limits)?.[key] ?? `the global option limits.${key}`;
}
