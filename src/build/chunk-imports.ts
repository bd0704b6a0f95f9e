/**
 * Which names the lazy chunks of a bundle import from the chunks folded into its entry, read from
 * the import statements esbuild writes at the top of every output file, after the banner
 * (`import{a as b,c}from"./chunk-X.mjs";`, spaced out when not minified). The fold
 * (fold-chunks.ts) re-exports from the entry only those names. A file whose static imports are
 * not all read that way counts as importing every export of the chunks it imports, which is
 * what the fold re-exported before.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** One import statement as esbuild writes it: named, or for its effects only (`import"./x.mjs";`). */
const IMPORT = /\s*import\s*(?:\{([^}]*)\}\s*from\s*)?"([^"]+)";?/y;

/** What the lazy chunks import from the folded chunks. */
export interface ChunkImports {
  /** A folded chunk's path → the names imported from it (its own export names, before `as`). */
  names: Map<string, Set<string>>;
  /** The folded chunks some file imports in a way not read here: every export counts. */
  unread: Set<string>;
}

/**
 * Reads the imports of `files` (absolute paths) from `chunks`; `staticImports(file)` is the
 * metafile's list of the chunks a file imports with a statement, which every read must account for.
 * @example chunkImports([lazyChunk], [sharedChunk], (file) => outputs.get(file)!.imports, banner)
 */
export function chunkImports(
  files: readonly string[],
  chunks: readonly string[],
  staticImports: (file: string) => readonly string[],
  banner: string,
): ChunkImports {
  const names = new Map<string, Set<string>>(chunks.map((chunk) => [chunk, new Set()]));
  const unread = new Set<string>();
  for (const file of files) {
    const wanted = staticImports(file).filter((chunk) => names.has(chunk));
    if (wanted.length === 0) continue;
    const read = readImports(file, banner);
    for (const chunk of wanted) {
      const imported = read.get(chunk);
      if (imported === undefined) unread.add(chunk);
      else for (const name of imported) names.get(chunk)!.add(name);
    }
  }
  return { names, unread };
}

/** The leading import statements of `file`: the path each names → the names it imports. */
function readImports(file: string, banner: string): Map<string, string[]> {
  const text = readFileSync(file, 'utf8');
  const out = new Map<string, string[]>();
  IMPORT.lastIndex = text.startsWith(banner) ? banner.length : 0;
  for (let match = IMPORT.exec(text); match !== null; match = IMPORT.exec(text)) {
    const path = resolve(dirname(file), match[2]!);
    const list = match[1] === undefined ? [] : match[1].split(',').map((item) => item.trim().split(/\s+as\s+/)[0]!);
    out.set(path, [...(out.get(path) ?? []), ...list.filter((name) => name !== '')]);
  }
  return out;
}
