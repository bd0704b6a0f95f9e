/**
 * `cloudfn build [root] --outdir dist [--minify] [--no-sourcemap] [--check]`: bundle every
 * function for deployment and print a table of sizes; `--target function-service` builds for
 * the platform's function service instead.
 */
import { join, relative, resolve } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import {
  buildFunctionService,
  buildProject,
  checkBundles,
  checkFunctionService,
  formatBuildTable,
  formatCheckTable,
  formatFunctionServiceTable,
  checkProjectLock,
} from '../build/index.js';
import { type AppRoot, buildApp, findAppRoot, formatAppBuild } from '../app/index.js';
import { MANIFEST } from '../build/outdir.js';
import { precheckSdk } from '../build/sdk-precheck.js';
import { checkPlatform } from '../platform/services/check-setup.js';
import { loadProjectConfig } from '../build/project-config.js';
import type { CheckRequest } from '../build/function-service/check.js';
import { formatTimerTriggers, type TimerTrigger } from '../contract/timers.js';
import { readFunctionFacts } from '../contract/write-openapi.js';
import { createBuildError } from '../build/errors.js';
import { checkProject, findTypeScript, formatReport } from '../typecheck/index.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { type CommandHelp, formatHelp } from './help.js';

/** What `cloudfn build --json` prints; documented in HELP.json and docs/cli.md. */
interface BuildJson {
  outdir: string;
  ms: number;
  typecheck: { checked: boolean; note: string | null };
  bundles: { name: string; file: string; bytes: number; gzipBytes: number; lazyBytes: number; ms: number }[];
  warnings: string[];
  /** The timer triggers to create on the platform (also in cloudfn-build.json); null when the functions could not be imported. */
  timers: TimerTrigger[] | null;
  checks: { file: string; ok: boolean; ms: number; problem: string | null }[] | null;
  /** The wall time of the whole check (the bundles are checked a few at a time). */
  checkMs: number | null;
}

export const HELP: CommandHelp = {
  name: 'build',
  usage: [
    'build [root] [--target server|function-service] [--outdir dist] [--minify] [--no-sourcemap]',
    '      [--per-function] [--external <pkg>]... [--sdk platform|stand-in] [--check] [--no-typecheck]',
    '      [--functions-dir functions] [--json]',
  ],
  description: `Type checks the project, then bundles every function of <root>/functions (default: the current
folder; --functions-dir or the config's functionsDir names another folder, . for the root
itself) with the runtime and its dependencies into <outdir>/server.mjs (by route, for
containers; one esbuild pass for all functions), with --per-function also each one into
<outdir>/<name>/index.mjs (serves that function at every path on PORT, default 8000), and the
functions' OpenAPI document into <outdir>/openapi.json.
Both targets write the timer triggers of config.schedule (function, cron, params, timeout)
into cloudfn-build.json and print them: the list to create on the platform. First it reads package-lock.json, and warns in one line of each package that npm ci (an image's
build stage) will refuse the lock for, with the fix (docs/deploy.md). At an app root (a
cloudfn.config.json with "services", docs/apps.md) it builds every service, each by its own
cloudfn build with the same flags into its own <service>/<outdir>, and prints one table.`,
  options: [
    [
      '--target <t>',
      "server (default): the bundles above, ES modules; function-service:\n<outdir>/function-service/<name>.js, CommonJS for the platform's function service\n(Node 14), with a package.json to deploy with dycloud function:deploy (docs/deploy.md)",
    ],
    [
      '--per-function',
      '(server) also write <outdir>/<name>/index.mjs, a self-contained bundle per function, for a\nplatform that runs one function per address (a build and a copy of the runtime each)',
    ],
    ['--external <pkg>', '(function-service) leave <pkg> out of the files and name it in package.json'],
    [
      '--sdk <which>',
      "(server) the @open-dy/node-server-sdk the bundles carry (config sdk): platform, the installed\npackage (images the platform builds); stand-in, cloudfn's local stand-in (images run elsewhere)",
    ],
    ['--functions-dir <dir>', 'the folder of the functions (config functionsDir; . is the root)'],
    ['-o, --outdir <dir>', 'where bundles go, relative to root (default dist)'],
    ['--minify', 'minify the bundles'],
    ['--no-sourcemap', 'do not write .map files (written by default; run with node --enable-source-maps)'],
    [
      '--check',
      'start what is deployed (server.mjs, and each bundle of --per-function), ask its health path,\nstop it; exit 1 if any fails\n(function-service: load each file under Node 14 and call it once)',
    ],
    ['--no-typecheck', 'bundle without type checking first (by default type errors stop the build)'],
    ['--json', 'print one JSON object on stdout instead of the table (see docs/cli.md)'],
  ],
  examples: [
    ['build', 'type check and bundle this folder into ./dist'],
    ['build --minify --check', 'minified, and start each bundle once to be sure it serves'],
    ['build --target function-service --check', 'CommonJS files for the function service, run once under Node 14'],
    ['build --check   (at an app root)', 'every service, each into its own dist/, one table'],
    ['build --json > build.json', 'the sizes as JSON, for a script or CI'],
  ],
  json: `{
  "outdir": string,                 // absolute
  "ms": number,                     // esbuild's time for the whole build
  "typecheck": { "checked": boolean, "note": string | null },  // note: why it was off
  "bundles": [{ "name": string, "file": string, "bytes": number, "gzipBytes": number,
                "lazyBytes": number, "ms": number }],
  "warnings": string[],
  "timers": [{ "function": string, "cron": string, "params": any, "timeout": number }] | null,
  "checks": [{ "file": string, "ok": boolean, "ms": number, "problem": string | null }] | null,
  "checkMs": number | null          // the whole check's time
}`,
  pages: ['build.md', 'deploy.md', 'apps.md', 'cli.md'],
};

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    outdir: { type: 'string', short: 'o' },
    minify: { type: 'boolean' },
    'no-sourcemap': { type: 'boolean' },
    check: { type: 'boolean' },
    'per-function': { type: 'boolean' },
    'no-typecheck': { type: 'boolean' },
    target: { type: 'string' },
    external: { type: 'string', multiple: true },
    sdk: { type: 'string' },
    'functions-dir': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(formatHelp(HELP) + '\n');
    return 0;
  }
  if (positionals.length > 1)
    throw new OptionsError(`build takes one project folder, got ${positionals.length}: ${positionals.join(' ')}`);
  if (values.outdir === '') throw new OptionsError('--outdir must not be empty, e.g. --outdir dist');
  const target = values.target ?? 'server';
  if (target !== 'server' && target !== 'function-service')
    throw new OptionsError(`--target must be server or function-service, got ${JSON.stringify(target)}`);
  if (values.external !== undefined && target !== 'function-service')
    throw new OptionsError(
      '--external applies to --target function-service only; the server bundles keep every package inside',
    );
  if (values['per-function'] === true && target === 'function-service')
    throw new OptionsError(
      '--per-function applies to --target server only; the function service always gets one file per function',
    );
  if (values.sdk !== undefined && values.sdk !== 'platform' && values.sdk !== 'stand-in')
    throw new OptionsError(`--sdk must be platform or stand-in, got ${JSON.stringify(values.sdk)}`);
  if (values.sdk !== undefined && target === 'function-service')
    throw new OptionsError(
      '--sdk applies to the server bundles only; on the function service the platform installs @open-dy/node-server-sdk from package.json',
    );
  const root = resolve(positionals[0] ?? '.');
  const app = appRootAt(root);
  if (app !== undefined) {
    if (values.json === true)
      throw new OptionsError(
        `--json goes with one service; at the app root run cloudfn build <service> --json (services: ${app.services.map((s) => s.name).join(', ')})`,
      );
    return buildEveryService(
      app,
      argv.filter((arg) => arg !== positionals[0]),
      values.outdir,
    );
  }
  const json = values.json === true;
  // Before the type check, so it shows even when that fails: what `npm ci` (the image's build
  // stage) will refuse in the lock. The build itself goes on; it needs no `npm ci`.
  const lockWarnings = checkProjectLock(root);
  for (const line of lockWarnings) process.stderr.write(`cloudfn: warning: ${line}\n`);
  // Before the type check, which can take many seconds: an SDK the bundles need but cannot have.
  if (target === 'server')
    await precheckSdk(root, {
      ...(values.sdk === undefined ? {} : { sdk: values.sdk }),
      ...(values['functions-dir'] === undefined ? {} : { functionsDir: values['functions-dir'] }),
    }).catch((error: unknown) => {
      throw error instanceof CloudfnError ? new OptionsError(error.message) : error;
    });
  let typeNote = '';
  if (values['no-typecheck'] !== true) {
    // Said when there is something to check (else the note after the table says why not), on
    // stderr so that stdout stays the table (or the JSON) alone.
    // esbuild strips types without checking them: without this, `const n: number = name` ships.
    const setup = findTypeScript(root);
    if (setup.ok)
      process.stderr.write(
        `type checking with TypeScript ${setup.version} and ${relative(root, setup.tsconfig)}… (--no-typecheck skips it)\n`,
      );
    const types = await checkProject(root);
    if (!types.checked) typeNote = `type check off: ${types.reason}\n`;
    else if (types.diagnostics.length > 0)
      throw new OptionsError(createBuildError('CLOUDFN_TYPE_ERRORS', formatReport(types.diagnostics)).message);
  }
  if (target === 'function-service')
    return buildForFunctionService(root, {
      outdir: values.outdir,
      minify: values.minify === true,
      external: values.external ?? [],
      check: values.check === true,
      typeNote,
      functionsDir: values['functions-dir'],
    });
  let result;
  try {
    result = await buildProject(root, {
      outdir: values.outdir,
      minify: values.minify === true,
      sourcemap: values['no-sourcemap'] !== true,
      perFunction: values['per-function'] === true,
      ...(values['functions-dir'] === undefined ? {} : { functionsDir: values['functions-dir'] }),
      ...(values.sdk === undefined ? {} : { sdk: values.sdk }),
    });
  } catch (error) {
    // The same one line as start-up (plus a code frame for compile errors).
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  // The functions' contract beside the bundles (docs/contracts.md#openapi), and their timers.
  const facts = await readFunctionFacts(root, result.outdir, { openapi: true });
  if (facts.warning !== undefined) result.warnings.push(facts.warning);
  if (json) result.warnings.push(...lockWarnings);
  // What is deployed: server.mjs, one process for every function (and the bundles of --per-function).
  const checked = values.check === true ? await checkBundles(result.bundles) : undefined;
  const checks = checked?.checks;
  if (json) {
    const output: BuildJson = {
      outdir: result.outdir,
      ms: result.ms,
      typecheck: { checked: values['no-typecheck'] !== true && typeNote === '', note: typeNote.trim() || null },
      bundles: result.bundles.map(({ name, file, bytes, gzipBytes, lazyBytes, ms }) => ({
        name,
        file,
        bytes,
        gzipBytes,
        lazyBytes,
        ms,
      })),
      warnings: result.warnings,
      timers: facts.timers ?? null,
      checks:
        checks?.map((c) => ({ file: c.file, ok: c.ok, ms: c.ms, problem: c.ok ? null : (c.problem ?? 'failed') })) ??
        null,
      checkMs: checked?.ms ?? null,
    };
    process.stdout.write(`${JSON.stringify(output)}\n`);
    return checks?.some((c) => !c.ok) === true ? 1 : 0;
  }
  for (const warning of result.warnings) process.stderr.write(`cloudfn: warning: ${warning}\n`);
  process.stdout.write(
    formatBuildTable(result) + typeNote + formatTimerTriggers(facts.timers ?? [], manifestPath(result.outdir)),
  );
  if (checked === undefined) return 0;
  let failed = 0;
  for (const check of checked.checks) {
    const name = relative(process.cwd(), check.file);
    if (check.ok) process.stdout.write(`ok    ${name} (${check.ms} ms)\n`);
    else {
      failed++;
      process.stdout.write(`FAIL  ${name}: ${check.problem}\n`);
    }
  }
  process.stdout.write(
    `${checkedLine(
      result.bundles.map((b) => b.name),
      checked.ms,
    )}\n`,
  );
  return failed === 0 ? 0 : 1;
}

/**
 * The line after the server target's checks: what ran, and the time of the whole check.
 * @example checkedLine(['hello', 'server.mjs'], 900) // 'checked 1 server and 1 per-function bundle in 900 ms'
 */
function checkedLine(names: readonly string[], ms: number): string {
  const perFunction = names.filter((name) => name !== 'server.mjs').length;
  const servers = names.length - perFunction;
  const parts = [
    ...(servers > 0 ? [`${servers} server`] : []),
    ...(perFunction > 0 ? [`${perFunction} per-function ${perFunction === 1 ? 'bundle' : 'bundles'}`] : []),
  ];
  return `checked ${parts.join(' and ')} in ${ms} ms`;
}

/** The app root at exactly `root` (a service folder, or a single project, is built as before). */
function appRootAt(root: string): AppRoot | undefined {
  try {
    const app = findAppRoot(root);
    return app?.root === root ? app : undefined;
  } catch (error) {
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
}

/** At the app root: every service by its own `cloudfn build`, then one table. */
async function buildEveryService(app: AppRoot, args: string[], outdir: string | undefined): Promise<number> {
  const builds = await buildApp(app, {
    args,
    ...(outdir === undefined ? {} : { outdir }),
    onStart: (service) => process.stderr.write(`building ${service}…\n`),
  });
  process.stdout.write(formatAppBuild(app, builds));
  return builds.every((b) => b.ok) ? 0 : 1;
}

/** `--target function-service`: the files, their table, and with `--check` the Node 14 run. */
async function buildForFunctionService(
  root: string,
  options: {
    outdir: string | undefined;
    minify: boolean;
    external: string[];
    check: boolean;
    typeNote: string;
    functionsDir: string | undefined;
  },
): Promise<number> {
  let result;
  try {
    result = await buildFunctionService(root, {
      ...(options.outdir === undefined ? {} : { outdir: join(options.outdir, 'function-service') }),
      minify: options.minify,
      external: options.external,
      ...(options.functionsDir === undefined ? {} : { functionsDir: options.functionsDir }),
    });
  } catch (error) {
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  const facts = await readFunctionFacts(root, result.outdir, { openapi: false });
  if (facts.warning !== undefined) result.warnings.push(facts.warning);
  for (const warning of result.warnings) process.stderr.write(`cloudfn: warning: ${warning}\n`);
  process.stdout.write(
    formatFunctionServiceTable(result) +
      options.typeNote +
      formatTimerTriggers(facts.timers ?? [], manifestPath(result.outdir)),
  );
  if (!options.check) return 0;
  const started = performance.now();
  const { node, checks, sdkStandIn, notes } = await checkFunctionService(root, result.files, {
    sdkImporters: result.sdkImporters,
    requests: await checkRequests(root),
    timers: facts.timers ?? [],
    platform: await checkPlatform(root),
    say: (line) => process.stderr.write(`cloudfn: ${line}\n`),
  });
  process.stdout.write(`\n${formatCheckTable(node, checks, { sdkStandIn, notes })}`);
  process.stdout.write(
    `checked ${checks.length} ${checks.length === 1 ? 'file' : 'files'} in ${Math.round(performance.now() - started)} ms\n`,
  );
  return checks.every((check) => check.ok) ? 0 : 1;
}

/** The project's `checkRequests` (validated with the rest of its config). */
async function checkRequests(root: string): Promise<Record<string, CheckRequest>> {
  const config = await loadProjectConfig(root);
  const given = config['checkRequests'] ?? {};
  const where = `${config.file ?? 'cloudfn.config'}: checkRequests`;
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new OptionsError(`${where} must be an object of requests by function name, got ${JSON.stringify(given)}`);
  for (const [name, request] of Object.entries(given as Record<string, unknown>)) {
    const r = request as CheckRequest | null;
    if (typeof r !== 'object' || r === null || Array.isArray(r))
      throw new OptionsError(
        `${where}.${name} must be an object such as { "method": "POST", "body": [] }, got ${JSON.stringify(r)}`,
      );
    if (r.trigger !== undefined && r.trigger !== 'timer')
      throw new OptionsError(
        `${where}.${name}.trigger must be "timer" (a firing of its timer trigger) or left out, got ${JSON.stringify(r.trigger)}`,
      );
    if (r.method !== undefined && r.method !== 'GET' && r.method !== 'POST')
      throw new OptionsError(`${where}.${name}.method must be GET or POST, got ${JSON.stringify(r.method)}`);
    if (
      r.headers !== undefined &&
      (typeof r.headers !== 'object' || Object.values(r.headers).some((v) => typeof v !== 'string'))
    )
      throw new OptionsError(
        `${where}.${name}.headers must map header names to strings, got ${JSON.stringify(r.headers)}`,
      );
  }
  return given as Record<string, CheckRequest>;
}

/** The manifest of a build, as the user would type its path. */
function manifestPath(outdir: string): string {
  return relative(process.cwd(), join(outdir, MANIFEST)) || MANIFEST;
}
