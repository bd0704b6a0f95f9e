/**
 * Small parts of the reloader (reloader.ts): which paths a change touches, what a failure to
 * compile or load is answered with, and what discovery leaves out at the project root.
 */
import { sep } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import { createDevError } from './errors.js';

/** What discovery leaves out at the project root, for the line that lists what it took. */
export const SKIPPED_AT_ROOT =
  'scripts, tools, bin, test, dist, deploy, vendor, dot-folders, .gitignore entries, functionsIgnore';

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
