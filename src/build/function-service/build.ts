/**
 * `cloudfn build --target function-service`: one CommonJS file per function for the platform's
 * function service (Node 14), at the function's path (`functions/videos/list.ts` →
 * `videos/list.js`), with the adapter, the function and what it imports bundled and lowered to
 * Node 14, from one esbuild pass split into shared modules and put together per file
 * (assemble.ts); a `package.json` naming what stayed external (native add-ons, packages the user
 * marks external, and `@open-dy/node-server-sdk`, which the platform installs). The platform's
 * limits are checked before anything is bundled (limits.ts); the folder is written all or
 * nothing (outdir.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { resolveOptions } from '../../../runtime/options.js';
import { discoverFunctions } from '../../../runtime/serve/discover.js';
import { compileFailure, formatBytes } from '../bundle.js';
import { createBuildError } from '../errors.js';
import { checkFunctionExports } from '../check-exports.js';
import { formatMessage } from '../compile.js';
import { leanDeps } from '../lean-deps.js';
import { NativeModules } from '../native.js';
import { loadProjectConfig } from '../project-config.js';
import { MANIFEST, StagedOutdir } from '../outdir.js';
import { SdkImports, SERVER_SDK, sdkAlias } from '../sdk-alias.js';
import { selfAlias } from '../self-alias.js';
import { assembleFunctionFiles } from './assemble.js';
import { functionServiceEntry } from './entry.js';
import { requireExternals } from './external-requires.js';
import { leanFunctionService } from './lean.js';
import { Node14Globals } from './node14-globals.js';
import { checkLimits, type PlannedFile } from './limits.js';

/** The oldest Node the function service runs, as esbuild's target. */
export const FUNCTION_SERVICE_TARGET = 'node14';

/** Options of `buildFunctionService`. */
export interface FunctionServiceBuildOptions {
  /** Where the service folder goes, relative to the root (or absolute). @default 'dist/function-service' */
  outdir?: string;
  /** Minify the files. @default false */
  minify?: boolean;
  /** Packages to leave out of the files and name in package.json, for the platform to install. @default [] */
  external?: readonly string[];
  /** The folder of the functions (`--functions-dir`). @default the config's functionsDir, else 'functions' */
  functionsDir?: string;
}

/** One file written. */
export interface FunctionServiceFile {
  /** The function's name (`videos/list`). */
  name: string;
  /** Its path in the service folder (`videos/list.js`). */
  path: string;
  /** Absolute path of the file. */
  file: string;
  bytes: number;
  /** The time of the one esbuild pass that wrote every file, in milliseconds. */
  ms: number;
}

/** What a function-service build did. */
export interface FunctionServiceBuildResult {
  outdir: string;
  files: FunctionServiceFile[];
  /** Packages named in package.json's dependencies. */
  external: string[];
  /** The files (relative to the root) that import `@open-dy/node-server-sdk`. */
  sdkImporters: string[];
  /** The project's files (relative to the root) given `fetch` and its globals for Node 14. */
  fetchGlobals: string[];
  warnings: string[];
  ms: number;
}

/** The prefix of each file's virtual entry module (`cloudfn-function-service-entry:3`). */
const ENTRY_PREFIX = 'cloudfn-function-service-entry:';

/** The virtual entry module of each file, by its index in `sources`. */
function entryPlugin(root: string, sources: readonly string[]): Plugin {
  return {
    name: 'cloudfn-function-service-entry',
    setup(build) {
      build.onResolve({ filter: /^cloudfn-function-service-entry:\d+$/ }, (args) => ({
        path: args.path.slice(ENTRY_PREFIX.length),
        namespace: 'fs-entry',
      }));
      build.onLoad({ filter: /.*/, namespace: 'fs-entry' }, (args) => ({
        contents: sources[Number(args.path)]!,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/** The versions the project's package.json asks for, to name them again in the service's. */
function projectVersions(root: string): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return { ...pkg.devDependencies, ...pkg.dependencies };
  } catch {
    return {};
  }
}

/**
 * Builds every function of the project at `root` for the platform's function service.
 * @example const result = await buildFunctionService('/srv/app', { minify: true })
 */
export async function buildFunctionService(
  root: string,
  options: FunctionServiceBuildOptions = {},
): Promise<FunctionServiceBuildResult> {
  const started = performance.now();
  const outdir = resolve(root, options.outdir ?? join('dist', 'function-service'));
  const config = await loadProjectConfig(root);
  const { functionsDir, functionsIgnore } = resolveOptions({
    flags: { functionsDir: options.functionsDir },
    env: process.env,
    config,
  });
  // With functionsDir '.', the output folder sits among the functions: its files are not functions.
  const found = discoverFunctions(root, functionsDir, { ignore: functionsIgnore }).filter(
    (fn) => !fn.file.startsWith(outdir + sep),
  );
  const planned: (PlannedFile & { name: string; file: string })[] = found.map((fn) => ({
    name: fn.name,
    file: fn.file,
    path: `${fn.name}.js`,
    where: relative(root, fn.file),
  }));
  const over = checkLimits(planned);
  if (over !== undefined) throw over;
  await checkFunctionExports(root, found);
  const stage = new StagedOutdir(outdir);
  try {
    const result = await buildInto(root, stage.dir, planned, config, options);
    stage.commit();
    for (const file of result.files) file.file = join(outdir, file.path);
    return { ...result, outdir, ms: Math.round(performance.now() - started) };
  } finally {
    stage.abort();
  }
}

/** Bundles each planned function into `outdir` (the staging folder), with package.json and the manifest. */
async function buildInto(
  root: string,
  outdir: string,
  planned: readonly (PlannedFile & { name: string; file: string })[],
  config: Awaited<ReturnType<typeof loadProjectConfig>>,
  options: FunctionServiceBuildOptions,
): Promise<Omit<FunctionServiceBuildResult, 'outdir' | 'ms'>> {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  if (config.routes !== undefined && Object.keys(config.routes).length > 0)
    warn(
      `the routes of ${config.file ?? 'cloudfn.config'} do not apply on the function service, which maps each path to its file (videos/list.js answers /videos/list); call the functions at their own paths`,
    );
  const native = new NativeModules(root, warn);
  const external = [...(options.external ?? [])];
  const sdk = new SdkImports();
  const globals = new Node14Globals(root);
  // Every call comes through the platform: its headers are trusted unless the project says not.
  const trustGatewayHeaders = config['trustGatewayHeaders'] !== false;
  // One esbuild pass for every file, split into the modules the functions share; each file is
  // then put together from them (assemble.ts), so shared code is compiled and printed once.
  const started = performance.now();
  const sources = planned.map((fn) => functionServiceEntry(fn, { trustGatewayHeaders }));
  let pass: Awaited<ReturnType<typeof build<{ write: false; metafile: true }>>>;
  try {
    for (;;) {
      const detector = native.plugin();
      pass = await build({
        entryPoints: planned.map((fn, i) => ({ in: `${ENTRY_PREFIX}${i}`, out: fn.name })),
        outdir,
        chunkNames: '_chunks/[name]-[hash]',
        bundle: true,
        splitting: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'esm',
        target: FUNCTION_SERVICE_TARGET,
        // CommonJS has no import.meta: said at the line that uses it, and left empty, as before.
        supported: { 'import-meta': false },
        minify: options.minify === true,
        external,
        plugins: [
          // First: it asks the others whether a package is external.
          requireExternals(root),
          entryPlugin(root, sources),
          // Before any plugin that loads the project's files: it reads each one first.
          globals.plugin(),
          leanFunctionService(),
          selfAlias({ external: false }),
          // The platform installs its server SDK from package.json (below).
          sdkAlias({ mode: 'external', seen: sdk, root }),
          leanDeps(),
          detector.plugin,
        ],
        absWorkingDir: root,
        logLevel: 'silent',
      });
      if (detector.rebuild()) continue;
      for (const warning of pass.warnings) warn(formatMessage(warning, root));
      break;
    }
  } catch (error) {
    throw compileFailure(error, root);
  }
  const texts = await assembleFunctionFiles(pass, {
    root,
    outdir,
    entries: planned,
    target: FUNCTION_SERVICE_TARGET,
    minify: options.minify === true,
  });
  const files = planned.map((fn): FunctionServiceFile => {
    const outfile = join(outdir, fn.path);
    mkdirSync(dirname(outfile), { recursive: true });
    const code = Buffer.from(texts.get(fn.path)!);
    writeFileSync(outfile, code);
    return { name: fn.name, path: fn.path, file: outfile, bytes: code.length, ms: 0 };
  });
  // The pass is shared: each file's time is the pass's and the assembly's.
  const ms = Math.round(performance.now() - started);
  for (const file of files) file.ms = ms;

  const refused = globals.refused[0];
  if (refused !== undefined) throw createBuildError('CLOUDFN_NODE14_GLOBAL', refused.where, refused.name, refused.fix);
  const names = [...new Set([...external, ...native.external, ...(sdk.importers.size > 0 ? [SERVER_SDK] : [])])].sort();
  const versions = projectVersions(root);
  const dependencies = Object.fromEntries(names.map((name) => [name, versions[name] ?? '*']));
  writeFileSync(
    join(outdir, 'package.json'),
    `${JSON.stringify({ name: 'cloudfn-function-service', private: true, dependencies }, null, 2)}\n`,
  );
  const top = [...new Set(files.map((f) => f.path.split('/')[0]!))];
  writeFileSync(
    join(outdir, MANIFEST),
    `${JSON.stringify({ builtBy: 'cloudfn build --target function-service', functions: planned.map((fn) => fn.name), files: [...top, 'package.json'] }, null, 2)}\n`,
  );
  return {
    files,
    external: names,
    sdkImporters: [...sdk.importers].sort(),
    fetchGlobals: [...globals.provided].sort(),
    warnings,
  };
}

/**
 * The table a function-service build prints: each file's path, size and time. No gzip size: the
 * platform reads the files from disk, and compressing 50 files of a few hundred kB took longer
 * than building them.
 * @example process.stdout.write(formatFunctionServiceTable(result))
 */
export function formatFunctionServiceTable(result: FunctionServiceBuildResult): string {
  const rows = [['file', 'size', 'time'], ...result.files.map((f) => [f.path, formatBytes(f.bytes), `${f.ms} ms`])];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  const line = (row: string[]): string =>
    row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!))).join('  ');
  const external = result.external.length === 0 ? 'none' : result.external.join(', ');
  return (
    rows.map(line).join('\n') +
    `\n\n${result.files.length} ${result.files.length === 1 ? 'file' : 'files'} for the function service in ${relative(process.cwd(), result.outdir) || '.'} (${result.ms} ms); package.json dependencies: ${external}\n`
  );
}
