/**
 * One file to start: after esbuild's code splitting, the chunks a bundle's entry imports
 * statically (the code it shares with what loads on first use: the error table, the option
 * readers, esbuild's helpers) are folded back into the entry by a second, small esbuild pass
 * over the entry and those chunks, so Node reads, compiles and links one file before the port
 * opens (the hello bundle was the entry and 7 chunks: about 3 ms of CPU of each cold start).
 *
 * A folded chunk that a lazy chunk imports becomes a one-line forwarder re-exporting the entry's
 * bindings, so the lazy chunks, written by the first pass and left untouched (with their source
 * maps), still share one instance of each module with the start-up code: one `CloudfnError`
 * class for `instanceof`, one copy of a module's state. That is why a bundle's entry has no
 * top-level await (entry.ts): a chunk imported while the entry still awaited would wait for it.
 * esbuild's own helpers (`__commonJS`, `__toESM`, ...) hold no state: the entry takes a copy of
 * those it uses and their chunk stays a file for the lazy chunks.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { build, type Metafile, type Plugin, transform } from 'esbuild';
import { bundleBanner, FOLDED_REQUIRE } from './banner.js';
import { type ChunkImports, chunkImports } from './chunk-imports.js';

/** What `foldStartChunks` needs of the first pass. */
export interface FoldInput {
  /** Absolute path of the entry file the first pass wrote. */
  entry: string;
  /** The first pass's metafile outputs (paths relative to `workingDir`). */
  outputs: Metafile['outputs'];
  /** The first pass's `absWorkingDir`. */
  workingDir: string;
  /** The banner every output file of the first pass starts with (the fold writes its own once). */
  firstBanner: string;
  minify: boolean;
  sourcemap: boolean;
}

/** What a bundle is after the fold. */
export interface FoldResult {
  /** The files Node reads at start: the entry alone, or with the chunks it kept (top-level await). */
  atStart: string[];
  /** Every other output file: what loads on first use, and the forwarders. */
  chunks: string[];
}

/** The namespace of the fold's virtual entry. */
const FOLD_NAMESPACE = 'cloudfn-fold';

/** One output file of the first pass, its paths absolute. */
interface Output {
  /** The output files it imports with an import statement (not `import()`). */
  imports: string[];
  exports: string[];
  /** Its source files, as the metafile names them (relative to the working folder). */
  sources: Set<string>;
}

/** The first pass's `.mjs` outputs by absolute path. */
function outputsOf(input: FoldInput): Map<string, Output> {
  const at = (path: string): string => resolve(input.workingDir, path);
  return new Map(
    Object.entries(input.outputs)
      .filter(([file]) => file.endsWith('.mjs'))
      .map(([file, output]) => [
        at(file),
        {
          imports: output.imports
            .filter((imported) => imported.kind === 'import-statement' && imported.external !== true)
            .map((imported) => at(imported.path)),
          exports: output.exports,
          sources: new Set(Object.keys(output.inputs)),
        },
      ]),
  );
}

/** The chunks the entry imports statically, transitively, in the order found. */
function staticChunks(entry: string, outputs: ReadonlyMap<string, Output>): string[] {
  const found = [entry];
  for (let i = 0; i < found.length; i++)
    for (const file of outputs.get(found[i]!)?.imports ?? []) if (!found.includes(file)) found.push(file);
  return found.slice(1);
}

/**
 * The names under which the entry exports the forwarded chunks' exports for the lazy chunks, by
 * chunk: `$0`, `$1`, … `$z`, `$10`, one count across them all. Short, since a minified entry
 * still spells each one out: the hello bundle's 69 took 67 bytes more as `<name>$<chunk>`. Only
 * the exports a lazy chunk imports (chunk-imports.ts): the others serve the folded code alone,
 * which needs no export (the hello bundle's entry re-exported 32 such names).
 */
function aliasesOf(forwarded: readonly string[], outputs: ReadonlyMap<string, Output>, imports: ChunkImports) {
  let count = 0;
  return forwarded.map((chunk) => {
    const used = imports.unread.has(chunk) ? undefined : imports.names.get(chunk);
    const names = outputs.get(chunk)!.exports.filter((name) => used === undefined || used.has(name));
    return new Map(names.map((name) => [name, `$${(count++).toString(36)}`]));
  });
}

/** A path as an import specifier relative to `fromDir` (`./x.mjs`, `../index.mjs`). */
function specifier(fromDir: string, file: string): string {
  const path = relative(fromDir, file).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/**
 * Folds the entry's static chunks into the entry, rewrites those a lazy chunk imports as
 * forwarders and deletes the others; resolves with what loads at start and the chunk files.
 * @example const chunks = await foldStartChunks({ entry, outputs: result.metafile.outputs, workingDir: root, firstBanner, minify: false, sourcemap: true })
 */
export async function foldStartChunks(input: FoldInput): Promise<FoldResult> {
  const outputs = outputsOf(input);
  const others = [...outputs.keys()].filter((file) => file !== input.entry);
  const folded = staticChunks(input.entry, outputs);
  // A function (or a package) with top-level await keeps the chunks apart: a chunk it imported
  // while it still awaited would import the entry, and wait for it forever.
  if (folded.length === 0 || (await hasTopLevelAwait(readFileSync(input.entry, 'utf8'))))
    return { atStart: [input.entry, ...folded], chunks: others };
  const lazy = others.filter((file) => !folded.includes(file));
  // The folded chunks a lazy chunk imports: the entry exports their bindings for the forwarders.
  const shared = folded.filter((chunk) => lazy.some((file) => outputs.get(file)!.imports.includes(chunk)));
  // Except esbuild's own helpers (`__commonJS`, `__toESM`, `__export`...), a chunk of no source
  // file that imports nothing: they hold no state, so the entry takes a copy of the few it uses
  // and the lazy chunks keep the file as written (the hello bundle's entry used `__export` alone,
  // and carried all of them: 0.9 kB minified).
  const kept = shared.filter((chunk) => isStateless(outputs.get(chunk)!));
  const forwarded = shared.filter((chunk) => !kept.includes(chunk));
  const dir = dirname(input.entry);
  const imports = chunkImports(lazy, forwarded, (file) => outputs.get(file)!.imports, input.firstBanner);
  const aliases = aliasesOf(forwarded, outputs, imports);
  const reexports = forwarded.map(
    (chunk, i) =>
      `export { ${[...aliases[i]!].map(([name, alias]) => `${name} as ${alias}`).join(', ')} } from ${JSON.stringify(specifier(dir, chunk))};`,
  );
  await build({
    entryPoints: [`${FOLD_NAMESPACE}:entry`],
    outfile: input.entry,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: input.minify,
    sourcemap: input.sourcemap ? 'linked' : false,
    // The first pass's `require`, kept by that name, would be wrapped in a second helper.
    banner: { js: bundleBanner(FOLDED_REQUIRE) },
    define: { require: FOLDED_REQUIRE },
    // The first pass's comments naming each source file, kept (see `firstPassText`).
    legalComments: 'inline',
    plugins: [foldPlugin(input, outputs, [input.entry, ...folded], reexports)],
    absWorkingDir: dir,
    logLevel: 'silent',
  });
  for (const chunk of folded) {
    if (kept.includes(chunk)) continue;
    rmSync(`${chunk}.map`, { force: true });
    const i = forwarded.indexOf(chunk);
    if (i === -1) {
      rmSync(chunk, { force: true });
      continue;
    }
    const names = [...aliases[i]!].map(([name, alias]) => `${alias} as ${name}`);
    writeFileSync(
      chunk,
      `export { ${names.join(', ')} } from ${JSON.stringify(specifier(dirname(chunk), input.entry))};\n`,
    );
  }
  return { atStart: [input.entry], chunks: [...lazy, ...forwarded, ...kept] };
}

/** A chunk of esbuild's helpers only: no source file of its own, no import. */
function isStateless(output: Output): boolean {
  return output.sources.size === 0 && output.imports.length === 0;
}

/**
 * Whether module code awaits at its top level: esbuild refuses to write such code as CommonJS.
 * Any other refusal counts as yes too, which keeps the layout that needs no proof.
 */
async function hasTopLevelAwait(code: string): Promise<boolean> {
  try {
    await transform(code, { format: 'cjs', logLevel: 'silent' });
    return false;
  } catch {
    return true;
  }
}

/**
 * The fold's plugin: the virtual entry (import the first pass's entry, re-export the forwarded
 * chunks' bindings), the first pass's files read without their banner, the lazy chunks'
 * `import()` pointed from the entry's folder, and every other import (node builtins, packages
 * left external) kept as written.
 */
function foldPlugin(
  input: FoldInput,
  outputs: ReadonlyMap<string, Output>,
  files: readonly string[],
  reexports: readonly string[],
): Plugin {
  const dir = dirname(input.entry);
  return {
    name: 'cloudfn-fold',
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${FOLD_NAMESPACE}:entry$`) }, () => ({
        path: 'entry',
        namespace: FOLD_NAMESPACE,
      }));
      b.onLoad({ filter: /.*/, namespace: FOLD_NAMESPACE }, () => ({
        contents: [`import ${JSON.stringify(specifier(dir, input.entry))};`, ...reexports, ''].join('\n'),
        resolveDir: dir,
        loader: 'js',
      }));
      b.onResolve({ filter: /.*/ }, (args) => {
        // A lazy chunk stays a file of its own; imported from a folded chunk of `_chunks/`, its
        // path is written again from the entry's folder, where that code now runs.
        if (args.kind === 'dynamic-import')
          return {
            path: /^\.{1,2}\//.test(args.path) ? specifier(dir, resolve(args.resolveDir, args.path)) : args.path,
            external: true,
          };
        const file = resolve(args.resolveDir, args.path);
        if (/^\.{1,2}\//.test(args.path) && files.includes(file)) return { path: file };
        return { path: args.path, external: true };
      });
      b.onLoad({ filter: /\.mjs$/ }, (args) => ({
        contents: firstPassText(readFileSync(args.path, 'utf8'), input, outputs.get(args.path)),
        resolveDir: dirname(args.path),
        loader: 'js',
      }));
    },
  };
}

/**
 * A file of the first pass as the fold reads it: without the banner (the fold writes it once;
 * its lines are kept empty, so the file's source map still lines up), and with esbuild's
 * comments naming each source file (`// ../runtime/request/handle.js`) made legal comments
 * (`//! …`), which a bundling pass keeps in place: an unminified bundle still says where each
 * part of it comes from.
 */
function firstPassText(text: string, input: FoldInput, output: Output | undefined): string {
  const banner = input.firstBanner;
  const withoutBanner = text.startsWith(banner)
    ? '\n'.repeat(banner.split('\n').length - 1) + text.slice(banner.length)
    : text;
  if (output === undefined) return withoutBanner;
  if (input.minify) return isStateless(output) ? helpersMarkedPure(withoutBanner) : withoutBanner;
  const sources = output.sources;
  return withoutBanner.replace(/^\/\/ (.+)$/gm, (line, path: string) => (sources.has(path) ? `//! ${path}` : line));
}

/**
 * esbuild's helpers, minified, with their `@__PURE__` marks put back: esbuild marks the ones
 * made by a call (`__require`, a Proxy over `require`) pure, and minifying drops the mark, so
 * the fold would keep them in the entry when nothing there uses them (0.3 kB of the hello
 * bundle). Each `name=(` of a declaration gets the mark: before a call, the call may go when
 * its value is unused; before anything else, esbuild ignores it.
 */
function helpersMarkedPure(text: string): string {
  return text.replace(/(^|[;,])((?:var |let |const )?[\w$]+=)\(/gm, '$1$2/* @__PURE__ */(');
}
