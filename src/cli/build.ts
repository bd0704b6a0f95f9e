/**
 * `cloudfn build [root] --outdir dist [--minify] [--no-sourcemap] [--check]`: bundle every
 * function for deployment and print a table of sizes.
 */
import { relative, resolve } from 'node:path';
import { CloudfnError } from '../../runtime/errors.js';
import { buildProject, checkBundle, formatBuildTable } from '../build/index.js';
import { createDevError } from '../dev/errors.js';
import { checkProject, findTypeScript, formatReport } from '../typecheck/index.js';
import { OptionsError, parseCommandArgs } from './args.js';
import { helpText } from './help.js';

const HELP = `usage: cloudfn build [root] [--outdir dist] [--minify] [--no-sourcemap] [--check] [--no-typecheck]

Bundles each function of <root>/functions (default: the current folder) with the runtime and
its dependencies into <outdir>/<name>/index.mjs (serves that function at every path on PORT,
default 8000), and all of them into <outdir>/server.mjs (by route, for containers).

  --outdir <dir>    where bundles go, relative to root (default dist)
  --minify          minify the bundles
  --no-sourcemap    do not write .map files (written by default; run with node --enable-source-maps)
  --check           start every bundle, ask its health path, stop it; exit 1 if any fails
  --no-typecheck    bundle without type checking first (by default type errors stop the build)

See docs/build.md.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    outdir: { type: 'string', short: 'o' },
    minify: { type: 'boolean' },
    'no-sourcemap': { type: 'boolean' },
    check: { type: 'boolean' },
    'no-typecheck': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(helpText(HELP, ['build.md', 'deploy.md']) + '\n');
    return 0;
  }
  if (positionals.length > 1)
    throw new OptionsError(`build takes one project folder, got ${positionals.length}: ${positionals.join(' ')}`);
  if (values.outdir === '') throw new OptionsError('--outdir must not be empty, e.g. --outdir dist');
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
  let result;
  try {
    result = await buildProject(root, {
      outdir: values.outdir,
      minify: values.minify === true,
      sourcemap: values['no-sourcemap'] !== true,
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
