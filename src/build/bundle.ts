/**
 * `cloudfn build`: `<outdir>/server.mjs` serving every function by route, with the project's
 * cloudfn.config baked in, made by one esbuild pass whatever the number of functions; and, only
 * with `--per-function`, one self-contained ESM bundle per function (`<outdir>/<name>/index.mjs`:
 * the runtime, the function and its dependencies) that serves the function at every path. Native
 * packages stay external with a warning; everything else is inside the bundle, so a container
 * needs only Node and what server.mjs loads (docs/decisions.md#per-function-bundles-on-request-issue-56).
 *
 * What only some requests need (the multipart parser and busboy, the cookie codec, the Redis
 * stores of a fleet) is imported dynamically by the runtime, and esbuild's code splitting puts
 * it in chunk files beside the bundle (`<name>/_chunks/`, `_chunks/` for server.mjs), read when
 * first needed. The hello bundle went from 81.2 kB to under 50 kB minified that way, and a
 * function that never uses Redis carries none of its glue. The code the entry shares with those
 * chunks is then folded back into the entry (fold-chunks.ts): Node reads one file at start.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Message, type Metafile, type Plugin } from 'esbuild';
import type { LoadedFunction } from '../../runtime/types.js';
import { checkFunctionNames, type ConfigFile } from '../../runtime/serve/config-file.js';
import { loadProjectConfig } from './project-config.js';
import { discoverFunctions, type FoundFunction } from '../../runtime/serve/discover.js';
import { resolveOptions } from '../../runtime/options.js';
import { loadRoutePatterns, Router } from '../../runtime/request/router.js';
import { checkFunctionExports } from './check-exports.js';
import { CompileError, formatMessage } from './compile.js';
import { entrySource } from './entry.js';
import { type FoldResult, foldStartChunks } from './fold-chunks.js';
import { bundleBanner } from './banner.js';
import { leanDeps } from './lean-deps.js';
import { NativeModules } from './native.js';
import { optionalPeers } from './optional-peers.js';
import { MANIFEST, StagedOutdir } from './outdir.js';
import { SdkImports, type SdkMode, sdkAlias } from './sdk-alias.js';
import { redisClient } from './redis-client.js';
import { selfAlias } from './self-alias.js';
import { createModuleError } from '../../runtime/serve/module-errors.js';

/** Options of `buildProject`. */
export interface BuildOptions {
  /** Where bundles go, relative to the root (or absolute). @default 'dist' */
  outdir?: string;
  /** Minify the bundles. @default false */
  minify?: boolean;
  /** Write `index.mjs.map` beside each bundle. @default true */
  sourcemap?: boolean;
  /** Also write `server.mjs` with every function. @default true */
  server?: boolean;
  /**
   * Also write one self-contained bundle per function, `<name>/index.mjs` (`--per-function`):
   * each costs a build of its own and a copy of the runtime, so only when a platform runs one
   * function per address. @default false
   */
  perFunction?: boolean;
  /** The folder of the functions (`--functions-dir`). @default the config's functionsDir, else 'functions' */
  functionsDir?: string;
  /**
   * Which server SDK the bundles carry (`--sdk`): the installed package or cloudfn's stand-in
   * (docs/platform-projects.md#cloudfn-build). @default the config's sdk, else 'platform'
   */
  sdk?: 'platform' | 'stand-in';
}

/** One bundle written. */
export interface BuiltBundle {
  /** The function's name, or `server.mjs` for the all-functions server. */
  name: string;
  /** Absolute path of the `.mjs` file. */
  file: string;
  /**
   * What Node reads and compiles at start: the entry alone, since the chunks it imported
   * statically are folded into it (fold-chunks.ts), or with them when its code has top-level
   * await.
   */
  bytes: number;
  gzipBytes: number;
  /**
   * Absolute paths of every chunk file of the bundle: what loads lazily, and the forwarders through
   * which it imports what it shares with the entry.
   */
  chunks: string[];
  /** Size of the chunks, all imported only when first needed (`import()`), not at start. */
  lazyBytes: number;
  /** esbuild's time for this bundle, in milliseconds. */
  ms: number;
}

/** What a build did. */
export interface BuildResult {
  outdir: string;
  bundles: BuiltBundle[];
  /** Native packages left external, and esbuild's own warnings. */
  warnings: string[];
  ms: number;
}

export { MANIFEST } from './outdir.js';

/**
 * The folder of a bundle's lazily loaded chunks, beside its entry. Function names never start
 * with `_` (such files are helpers), so it cannot collide with a function's folder.
 */
export const CHUNKS_DIR = '_chunks';

/** The namespace of the virtual entry module (esbuild's code splitting takes no stdin). */
const ENTRY_NAMESPACE = 'cloudfn-entry';

/** The banner of every output file of the first pass (fold-chunks.ts writes the entry's). */
const BANNER = bundleBanner();

/** The config a bundle carries: options, per-function options and (for server.mjs) routes. */
function bakedConfig(config: ConfigFile, only?: string): ConfigFile {
  const { file: _file, routes, functions, ...options } = config as ConfigFile & { file?: string };
  if (only === undefined) return { ...options, ...(routes ? { routes } : {}), ...(functions ? { functions } : {}) };
  const own = functions?.[only];
  return { ...options, ...(own ? { functions: { [only]: own } } : {}) };
}

/** esbuild's failure as a `CompileError` with each message's code frame. */
export function compileFailure(error: unknown, root: string): Error {
  const errors = (error as { errors?: Message[] }).errors;
  if (errors === undefined) return error as Error;
  return new CompileError(
    errors[0]?.location?.file ?? 'functions',
    errors.map((m) => formatMessage(m, root)).join('\n'),
  );
}

/** Where one bundle goes: its folder and the entry's name in it (`index`, or `server`). */
interface BundleTarget {
  name: string;
  entry: string;
  dir: string;
  entryName: string;
}

/** An esbuild plugin serving the generated entry source as a module resolved from `root`. */
function virtualEntry(root: string, target: BundleTarget): Plugin {
  return {
    name: 'cloudfn-entry',
    setup(build) {
      build.onResolve({ filter: /^cloudfn-entry$/ }, () => ({ path: target.name, namespace: ENTRY_NAMESPACE }));
      build.onLoad({ filter: /.*/, namespace: ENTRY_NAMESPACE }, () => ({
        contents: target.entry,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/** What every bundle of one build shares. */
interface BundleContext {
  native: NativeModules;
  warn: (message: string) => void;
  sdk: SdkImports;
}

async function bundle(
  root: string,
  target: BundleTarget,
  options: Required<BuildOptions>,
  context: BundleContext,
): Promise<BuiltBundle> {
  const { native, warn } = context;
  const started = performance.now();
  const outfile = join(target.dir, `${target.entryName}.mjs`);
  let outputs: Metafile['outputs'] = {};
  try {
    for (;;) {
      const detector = native.plugin();
      const result = await build({
        entryPoints: [{ in: 'cloudfn-entry', out: target.entryName }],
        outdir: target.dir,
        outExtension: { '.js': '.mjs' },
        chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
        splitting: true,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: options.sourcemap ? 'linked' : false,
        minify: options.minify,
        banner: { js: BANNER },
        define: { __dirname: '__cloudfn_dirname', __filename: '__cloudfn_filename' },
        // The server SDK: the installed package or the stand-in, bundled in (sdk-alias.ts).
        plugins: [
          virtualEntry(root, target),
          selfAlias({ external: false }),
          sdkAlias({ mode: options.sdk satisfies SdkMode, seen: context.sdk, root }),
          leanDeps(),
          redisClient(warn),
          optionalPeers(),
          detector.plugin,
        ],
        absWorkingDir: root,
        metafile: true,
        logLevel: 'silent',
      });
      // A package seen native only at its .node file was bundled already: again, external.
      if (detector.rebuild()) continue;
      for (const warning of result.warnings) warn(formatMessage(warning, root));
      outputs = result.metafile.outputs;
      break;
    }
  } catch (error) {
    throw compileFailure(error, root);
  }
  // One file to start: the chunks the entry imports statically are folded into it.
  let files: FoldResult;
  try {
    files = await foldStartChunks({
      entry: outfile,
      outputs,
      workingDir: root,
      firstBanner: BANNER,
      minify: options.minify,
      sourcemap: options.sourcemap,
    });
  } catch (error) {
    throw compileFailure(error, root);
  }
  const ms = Math.round(performance.now() - started);
  const code = Buffer.concat(files.atStart.map((file) => readFileSync(file)));
  const lazy = files.chunks;
  return {
    name: target.name,
    file: outfile,
    bytes: code.length,
    gzipBytes: gzipSync(code).length,
    chunks: [...files.atStart.slice(1), ...lazy],
    lazyBytes: lazy.reduce((sum, file) => sum + statSync(file).size, 0),
    ms,
  };
}

/**
 * Builds every function of the project at `root`.
 * @example const result = await buildProject('/srv/app', { outdir: 'dist', minify: true })
 */
export async function buildProject(root: string, options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const config = await loadProjectConfig(root);
  const runtime = resolveOptions({
    flags: { functionsDir: options.functionsDir, sdk: options.sdk },
    env: process.env,
    config,
  });
  const resolved: Required<BuildOptions> = {
    outdir: options.outdir ?? 'dist',
    minify: options.minify ?? false,
    sourcemap: options.sourcemap ?? true,
    server: options.server ?? true,
    perFunction: options.perFunction ?? false,
    functionsDir: runtime.functionsDir,
    sdk: runtime.sdk,
  };
  const outdir = resolve(root, resolved.outdir);
  // With functionsDir '.', a custom outdir sits among the functions: its bundles are not functions.
  const found: FoundFunction[] = discoverFunctions(root, resolved.functionsDir, {
    ignore: runtime.functionsIgnore,
  }).filter((fn) => !fn.file.startsWith(outdir + sep));
  // The routes must name functions that exist, checked with the router's own message.
  await loadRoutePatterns(config.routes);
  new Router(
    found.map((fn) => ({ name: fn.name }) as LoadedFunction),
    config.routes,
  ).check();
  checkFunctionNames(
    config,
    found.map((fn) => fn.name),
  );
  // The export check runs beside the bundling (its own esbuild pass was a fifth of a build of
  // 300 functions); its message still comes first, as when it ran before: it names the file.
  const checked = checkFunctionExports(root, found).then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  let stage: StagedOutdir;
  try {
    stage = new StagedOutdir(outdir);
  } catch (error) {
    throw (await checked)?.error ?? error;
  }
  try {
    const [check, bundled] = await Promise.allSettled([checked, bundleAll(root, found, config, resolved, stage.dir)]);
    const problem = check.status === 'fulfilled' ? check.value : undefined;
    if (problem !== undefined) throw problem.error;
    if (bundled.status === 'rejected') throw bundled.reason;
    const bundles = bundled.value;
    stage.commit();
    // The staged paths, now under outdir.
    const moved = (file: string): string => join(outdir, relative(stage.dir, file));
    for (const b of bundles) {
      b.file = moved(b.file);
      b.chunks = b.chunks.map(moved);
    }
    return { outdir, bundles, warnings: bundles.warnings, ms: Math.round(performance.now() - started) };
  } finally {
    stage.abort();
  }
}

/** Bundles every function into `outdir` (the staging folder) and writes the manifest. */
async function bundleAll(
  root: string,
  found: readonly FoundFunction[],
  config: ConfigFile,
  resolved: Required<BuildOptions>,
  outdir: string,
): Promise<BuiltBundle[] & { warnings: string[] }> {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  const entries = found.map((fn) => ({ name: fn.name, file: fn.file, where: relative(root, fn.file) }));
  const context: BundleContext = { native: new NativeModules(root, warn), warn, sdk: new SdkImports() };
  const perFunction = resolved.perFunction ? entries : [];
  const targets: BundleTarget[] = perFunction.map((fn) => ({
    name: fn.name,
    entry: entrySource([fn], bakedConfig(config, fn.name), true),
    dir: join(outdir, fn.name),
    entryName: 'index',
  }));
  if (resolved.server)
    targets.push({
      name: 'server.mjs',
      entry: entrySource(entries, bakedConfig(config), false),
      dir: outdir,
      entryName: 'server',
    });
  const bundles = await Promise.all(targets.map((target) => bundle(root, target, resolved, context)));
  if (context.sdk.missing.size > 0)
    throw createModuleError('CLOUDFN_SDK_NOT_INSTALLED', [...context.sdk.missing].sort().join(', '));

  const files = [
    ...new Set(bundles.map((b) => relative(outdir, b.file).split('/')[0]!)),
    ...(resolved.server && resolved.sourcemap ? ['server.mjs.map'] : []),
    ...(resolved.server && bundles.some((b) => b.name === 'server.mjs' && b.chunks.length > 0) ? [CHUNKS_DIR] : []),
  ];
  writeFileSync(
    join(outdir, MANIFEST),
    JSON.stringify({ builtBy: 'cloudfn build', functions: found.map((fn) => fn.name), files }, null, 2) + '\n',
  );
  return Object.assign(bundles, { warnings });
}

/**
 * Bytes as the table shows them (decimal units).
 * @example formatBytes(41_300) // '41.3 kB'
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}

/**
 * The table `cloudfn build` prints: function, size and gzip size of what loads at start (the
 * entry and the chunks it imports), the size of the chunks loaded when first needed (`lazy`),
 * build time.
 * @example process.stdout.write(formatBuildTable(result))
 */
export function formatBuildTable(result: BuildResult): string {
  const rows = [
    ['function', 'size', 'gzip', 'lazy', 'time'],
    ...result.bundles.map((b) => [
      b.name,
      formatBytes(b.bytes),
      formatBytes(b.gzipBytes),
      b.lazyBytes === 0 ? '-' : formatBytes(b.lazyBytes),
      `${b.ms} ms`,
    ]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  const line = (row: string[]): string =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join('  ');
  return (
    rows.map(line).join('\n') +
    `\n\n${result.bundles.length} ${result.bundles.length === 1 ? 'bundle' : 'bundles'} in ${relative(process.cwd(), result.outdir) || '.'} (${result.ms} ms)\n`
  );
}
