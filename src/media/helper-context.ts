/**
 * What the helpers (list-videos.ts, workflows.ts, play-stats.ts) share: the client's call, clock
 * and env_id, and the splitting of long lists into the chunks one call takes.
 */
import type { CallOptions } from './call-options.js';
import type { MediaClock } from './clock.js';
import { MediaValidationError } from './errors.js';
import type { Operation, RequestOf, ResponseOf } from './types.js';
import type { ValidationIssue } from './validate.js';

/** How helpers reach the platform. */
export type Call = <O extends Operation>(
  operation: O,
  request: RequestOf<O>,
  options?: CallOptions,
) => Promise<ResponseOf<O>>;

/** What the helpers share with their client. */
export interface HelperContext {
  call: Call;
  clock: MediaClock;
  /** The client's default env_id. */
  envId: string | undefined;
}

/** `items` in runs of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The validation error of one chunk, named for the whole list the caller gave: `url_sets[3]` of
 * the chunk that starts at 20 is `url_sets[23]`.
 * @example throw wholeListError('upload_video_by_urls', issue, 'url_sets', 20)
 */
export function wholeListError(
  operation: Operation,
  issue: ValidationIssue,
  list: string,
  offset: number,
): MediaValidationError {
  const field = issue.field.replace(
    new RegExp(`^${list}\\[(\\d+)\\]`),
    (_, i: string) => `${list}[${offset + Number(i)}]`,
  );
  return new MediaValidationError(operation, { ...issue, field, message: issue.message.replace(issue.field, field) });
}
