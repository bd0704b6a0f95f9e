/**
 * The platform's limits on a function service (docs/deploy.md#the-platforms-function-service):
 * at most 10 folders and 50 `.js` files, no file and folder of the same name in one folder, and
 * the path prefix `__debug__` kept for the platform's debugging. Checked on the paths a build
 * would write, before anything is bundled.
 */
import type { CloudfnError } from '../../../runtime/errors.js';
import { createBuildError } from '../errors.js';

/** Most folders a service may hold. */
export const MAX_FOLDERS = 10;
/** Most `.js` files a service may hold. */
export const MAX_JS_FILES = 50;
/** The path prefix the platform keeps for debugging. */
export const RESERVED_PREFIX = '__debug__';

/** A file the build would write: its path in the service (`videos/list.js`) and its source. */
export interface PlannedFile {
  path: string;
  /** The source file, relative to the project, for messages. */
  where: string;
}

function list(items: readonly string[], most = 5): string {
  return items.length <= most ? items.join(', ') : `${items.slice(0, most).join(', ')} and ${items.length - most} more`;
}

/** Every folder holding a file, parents included (`a/b/c.js` → `a`, `a/b`). */
function foldersOf(files: readonly PlannedFile[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders].sort();
}

/**
 * The first limit `files` break, as the error to throw, or undefined when they fit.
 * @example const error = checkLimits([{ path: 'hello.js', where: 'functions/hello.ts' }]); if (error) throw error;
 */
export function checkLimits(files: readonly PlannedFile[]): CloudfnError | undefined {
  const reserved = files.filter((file) => file.path.startsWith(RESERVED_PREFIX));
  if (reserved.length > 0)
    return createBuildError(
      'CLOUDFN_FUNCTION_SERVICE_LIMIT',
      `keeps the path prefix ${RESERVED_PREFIX} for debugging`,
      `would write ${list(reserved.map((f) => `${f.path} (from ${f.where})`))}`,
      `Rename those functions so that their path does not start with ${RESERVED_PREFIX}.`,
    );
  const folders = foldersOf(files);
  const clashes = files.filter((file) => folders.includes(file.path.slice(0, -'.js'.length)));
  if (clashes.length > 0)
    return createBuildError(
      'CLOUDFN_FUNCTION_SERVICE_LIMIT',
      'cannot hold a file and a folder of the same name in one folder',
      `would write ${list(clashes.map((f) => `${f.path} (from ${f.where}) beside the folder ${f.path.slice(0, -3)}/`))}`,
      'Rename the function or the folder so that their names differ (functions/<name>/index.ts writes <name>.js too).',
    );
  if (files.length > MAX_JS_FILES)
    return createBuildError(
      'CLOUDFN_FUNCTION_SERVICE_LIMIT',
      `holds at most ${MAX_JS_FILES} .js files`,
      `has ${files.length} functions, one .js file each`,
      `Merge functions (one function can branch on a parameter) or split the project into services of at most ${MAX_JS_FILES} functions.`,
    );
  if (folders.length > MAX_FOLDERS)
    return createBuildError(
      'CLOUDFN_FUNCTION_SERVICE_LIMIT',
      `holds at most ${MAX_FOLDERS} folders`,
      `would write ${folders.length}: ${list(folders, 12)}`,
      `Put functions in at most ${MAX_FOLDERS} folders under functions/ (nested folders count too).`,
    );
  return undefined;
}
