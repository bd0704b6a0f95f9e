/**
 * Small parts of the reloader (reloader.ts): which paths a change touches, what a failure to
 * compile or load is answered with, the line saying what discovery took at the project root, and
 * the gates a change opens.
 */
import { relative, sep } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../runtime/log/record.js';
import type { FoundFunction } from '../../runtime/serve/discover.js';
import { createDevError } from './errors.js';

/** A promise and its resolve: the reloader's waits. */
export interface Gate {
  promise: Promise<void>;
  resolve: () => void;
}

/** A new, open gate. */
export function gate(): Gate {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** What discovery leaves out at the project root, for the line that lists what it took. */
const SKIPPED_AT_ROOT =
  'scripts, tools, bin, test, dist, deploy, vendor, dot-folders, .gitignore entries, functionsIgnore';

/** Says which files discovery took as functions at the project root (the platform layout). */
export function logDiscovered(logger: Logger, root: string, found: readonly FoundFunction[]): void {
  const files = found.map((fn) => relative(root, fn.file));
  logger.line(
    'info',
    '',
    RUNTIME_FUNCTION,
    `functions at the project root: ${files.join(', ') || 'none'} (not searched: ${SKIPPED_AT_ROOT})`,
    { event: 'discovered', files },
  );
}

/** Whether a change at `path` (a file, or a folder) touches one of `inputs`. */
export function touches(inputs: ReadonlySet<string>, path: string): boolean {
  if (inputs.has(path)) return true;
  const prefix = path + sep;
  for (const input of inputs) if (input.startsWith(prefix)) return true;
  return false;
}

/** A compile or load failure as the error its handler answers with (500, message exposed). */
export function asFailure(error: unknown, where: string): CloudfnError {
  if (error instanceof CloudfnError) {
    (error as { expose: boolean }).expose = true;
    return error;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  // Frames from Module._compile down are the dev server's, not the function's.
  const lines = detail.split('\n');
  const own = lines.findIndex((line) => line.includes('Module._compile'));
  return createDevError('CLOUDFN_DEV_LOAD_FAILED', where, (own === -1 ? lines : lines.slice(0, own)).join('\n'));
}
