/**
 * Where each limit of a function came from, in words, for the 413 messages: the function's own
 * config, or the global option and its source. Resolved once per function (app.ts) and handed
 * to the parsers with the limits; read only when a limit is hit, so a request pays nothing.
 */
import type { Limits, LimitSources } from '../types.js';

/**
 * The phrase naming where `key` was set, or the global option when the parser was called
 * without sources (a direct `parseBody` call).
 * @example limitSource(fn.limitSources, 'maxFileSize') // "the function's config.maxFileSize (...)"
 */
export function limitSource(sources: LimitSources | undefined, key: keyof Limits): string {
  return sources?.[key] ?? `the global option limits.${key}`;
}
