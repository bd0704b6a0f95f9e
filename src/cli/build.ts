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
  checkBundle,
  checkFunctionService,
  formatBuildTable,
  formatCheckTable,
  formatFunctionServiceTable,
} from '../build/index.js';
import { createDevError } from '../dev/errors.js';
import { checkProject, findTypeScript, formatReport } from '../typecheck/index.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { helpText } from './help.js';

const HELP = `usage: cloudfn build [root] [--target server|function-service] [--outdir dist] [--minify]
                    [--no-sourcemap] [--external <pkg>]... [--check] [--no-typecheck]
                    [--functions-dir functions]

Bundles each function of <root>/functions (default: the current folder; --functions-dir or the
config's functionsDir names another folder, . for the root itself) with the runtime and
its dependencies into <outdir>/<name>/index.mjs (serves that function at every path on PORT,
default 8000), and all of them into <outdir>/server.mjs (by route, for containers).

  --target <t>      server (default): the bundles above, ES modules for Node >= 20;
                    function-service: <outdir>/function-service/<name>.js, CommonJS for the
                    platform's function service (Node 14), with a package.json to deploy
                    with dycloud function:deploy (see docs/deploy.md)
  --external <pkg>  (function-service) leave <pkg> out of the files and name it in package.json
  --outdir <dir>    where bundles go, relative to root (default dist)
  --minify          minify the bundles
  --no-sourcemap    do not write .map files (written by default; run with node --enable-source-maps)
  --check           start every bundle, ask its health path, stop it; exit 1 if any fails
                    (function-service: load each file under Node 14 and call it once)
  --no-typecheck    bundle without type checking first (by default type errors stop the build)

See docs/build.md.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    outdir: { type: 'string', short: 'o' },
    minify: { type: 'boolean' },
    'no-sourcemap': { type: 'boolean' },
    check: { type: 'boolean' },
    'no-typecheck': { type: 'boolean' },
    target: { type: 'string' },
    external: { type: 'string', multiple: true },
    'functions-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(helpText(HELP, ['build.md', 'deploy.md']) + '\n');
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
  const root = resolve(positionals[0] ?? '.');
  let typeNote = '';
  if (values['no-typecheck'] !== true) {
    // esbuild strips types without checking them: without this, `const n: number = name` ships.
    const setup = findTypeScript(root);
    if (setup.ok) process.stdout.write(`type checking with TypeScript ${setup.version} (--no-typecheck skips it)\n`);
    const types = await checkProject(root);
    if (!types.checked) typeNote = `type check off: ${types.reason}\n`;
    else if (types.diagnostics.length > 0)
      throw new OptionsError(createDevError('CLOUDFN_TYPE_ERRORS', formatReport(types.diagnostics)).message);
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
      ...(values['functions-dir'] === undefined ? {} : { functionsDir: values['functions-dir'] }),
    });
  } catch (error) {
    // The same one line as start-up (plus a code frame for compile errors).
    if (error instanceof CloudfnError) throw new OptionsError(error.message);
    throw error;
  }
  for (const warning of result.warnings) process.stderr.write(`cloudfn: warning: ${warning}\n`);
  process.stdout.write(formatBuildTable(result) + typeNote);
  if (!values.check) return 0;
  const checks = await Promise.all(result.bundles.map((b) => checkBundle(b.file, { chunks: b.chunks })));
  let failed = 0;
  for (const check of checks) {
    const name = relative(process.cwd(), check.file);
    if (check.ok) process.stdout.write(`ok    ${name} (${check.ms} ms)\n`);
    else {
      failed++;
      process.stdout.write(`FAIL  ${name}: ${check.problem}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
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
  for (const warning of result.warnings) process.stderr.write(`cloudfn: warning: ${warning}\n`);
  process.stdout.write(formatFunctionServiceTable(result) + options.typeNote);
  if (!options.check) return 0;
  const { node, checks } = await checkFunctionService(root, result.files);
  process.stdout.write(`\n${formatCheckTable(node, checks)}`);
  return checks.every((check) => check.ok) ? 0 : 1;
}
