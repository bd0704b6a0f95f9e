/**
 * Finds the functions of a project: each `functions/<name>.(ts|mts|cts|js|mjs|cjs)` or
 * `functions/<name>/index.*` is one function named by its path (`functions/videos/list.ts` is
 * `videos/list`). Files and folders starting with `_` or `.`, tests (`*.test.*`, `*.spec.*`),
 * declarations (`*.d.ts`) and `node_modules` are not functions, so helpers can live beside them.
 * The folder is the `functionsDir` option; `.` is the project root (the platform's own layout),
 * where config files (`*.config.*`), `dist`, `test`, `tests`, the project's own folders
 * (`scripts`, `tools`, `bin`), what `.gitignore` lists and any folder holding a build's
 * `cloudfn-build.json` are not functions either. The `functionsIgnore` option skips more
 * (discover-ignore.ts).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { createError } from '../errors.js';
import { ignoreTest, OWNED_FOLDERS, readGitignore } from './discover-ignore.js';

/** The extensions a function file may have, in the order tried for `<name>/index.*`. */
export const FUNCTION_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const;

/** The manifest `cloudfn build` writes in its output folder (src/build/bundle.ts). */
const BUILD_MANIFEST = 'cloudfn-build.json';

/** A function file found on disk. */
export interface FoundFunction {
  name: string;
  /** Absolute path. */
  file: string;
}

function extensionOf(file: string): string | undefined {
  return FUNCTION_EXTENSIONS.find((ext) => file.endsWith(ext) && !file.endsWith('.d' + ext));
}

/** At the project root, what is a project's file rather than a function. */
function ignoredAtRoot(entry: string): boolean {
  return (
    ignored(entry) ||
    entry === 'dist' ||
    // A project's deploy manifests (and the probe script beside them) and its vendored packages.
    entry === 'deploy' ||
    entry === 'vendor' ||
    entry === 'test' ||
    entry === 'tests' ||
    /\.config\.[cm]?[jt]s$/.test(entry) ||
    /^(vitest|jest|webpack|rollup|vite|eslint|babel)\.[a-z.]*$/.test(entry)
  );
}

/** The files at the root that would be functions with `functionsDir: "."`, for the message. */
function rootHandlers(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !ignoredAtRoot(entry.name) && extensionOf(entry.name) !== undefined)
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

function ignored(entry: string): boolean {
  return (
    entry.startsWith('_') ||
    entry.startsWith('.') ||
    entry === 'node_modules' ||
    /\.(test|spec)\.[cm]?[jt]s$/.test(entry)
  );
}

/** Options of `discoverFunctions`. */
export interface DiscoverOptions {
  /** Patterns of paths (relative to the root) never taken as functions (the `functionsIgnore` option). @default [] */
  ignore?: readonly string[];
}

/**
 * Lists the functions under `<root>/functions`, sorted by name. Two files giving the same name
 * (`hello.ts` and `hello/index.ts`) stop start-up with both paths named.
 * @example discoverFunctions('/srv/app') // [{ name: 'hello', file: '/srv/app/functions/hello.ts' }]
 */
export function discoverFunctions(root: string, dir = 'functions', options: DiscoverOptions = {}): FoundFunction[] {
  const atRoot = dir === '.';
  // In the platform layout the root is also the user's: their scripts and ignored files are not functions.
  const skip = ignoreTest([
    ...(atRoot ? [...OWNED_FOLDERS.map((name) => `/${name}/`), ...readGitignore(root)] : []),
    ...(options.ignore ?? []),
  ]);
  const base = atRoot ? root : join(root, dir);
  try {
    if (!statSync(base).isDirectory()) throw new Error('not a folder');
  } catch {
    if (basename(root) === dir) {
      // `cloudfn dev functions`: the folder given is the functions folder, not the project.
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        base,
        `there is no functions folder: ${root} is the functions folder itself; pass the project root that holds it, ${dirname(root)} (e.g. cloudfn dev . from there)`,
      );
    }
    const atTop = dir === 'functions' ? rootHandlers(root) : [];
    if (atTop.length > 0) {
      // Not taken as functions unasked: a build script at the root would become a public URL.
      const shown = atTop.slice(0, 3).join(', ') + (atTop.length > 3 ? ', ...' : '');
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        base,
        `there is no functions folder, but ${shown} sit${atTop.length === 1 ? 's' : ''} at the project root, as in the platform's layout; to serve them, set "functionsDir": "." in cloudfn.config.json (or pass --functions-dir .)`,
      );
    }
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      base,
      `there is no ${dir} folder; create ${join(dir, 'hello.ts')} with export default async function (params, service) { ... }`,
    );
  }
  const found = new Map<string, string>();
  const add = (name: string, file: string): void => {
    const other = found.get(name);
    if (other !== undefined) {
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        relative(root, file),
        `function ${JSON.stringify(name)} is also defined by ${relative(root, other)}; keep one of them`,
      );
    }
    found.set(name, file);
  };
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (atRoot && folder === base ? ignoredAtRoot(entry.name) : ignored(entry.name)) continue;
      const full = join(folder, entry.name);
      if (skip(relative(root, full).split(sep).join('/'), entry.isDirectory())) continue;
      if (entry.isDirectory()) {
        // At the root, an earlier `cloudfn build --outdir <dir>` is output, not functions.
        if (atRoot && folder === base && existsSync(join(full, BUILD_MANIFEST))) continue;
        walk(full);
        continue;
      }
      const ext = extensionOf(entry.name);
      if (ext === undefined || !entry.isFile()) continue;
      let name = relative(base, full).slice(0, -ext.length).split(sep).join('/');
      if (name === 'index' || name.endsWith('/index'))
        name = name === 'index' ? 'index' : name.slice(0, -'/index'.length);
      add(name, full);
    }
  };
  walk(base);
  return [...found].map(([name, file]) => ({ name, file })).sort((a, b) => a.name.localeCompare(b.name));
}
