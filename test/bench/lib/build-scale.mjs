/**
 * The build row (issue 56): a generated project of N functions (each declaring zod params and
 * calling a shared helper, one importing a native-free package, semver), built by
 * `buildProject` (`--target server`) and `buildFunctionService` of dist/src/build, each timed
 * and its output folder weighed, against esbuild's own one-pass time on the same code (the
 * functions and the runtime's start as entries, one build with shared chunks). The ratio is what the row
 * judges: the machine may be loaded, and esbuild's time moves with it.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ratioRow } from './rows.mjs';

/** The name of generated function `i` (`fn-007`), in folders of 50 (`g0/fn-007`). */
export function functionName(i) {
  return `g${Math.floor(i / 50)}/fn-${String(i).padStart(3, '0')}`;
}

/**
 * Writes a project of `count` functions into `dir`, its node_modules a link to cloudfn's own.
 * @example generateProject('/tmp/p', 10, '/work/cloudfn')
 */
export function generateProject(dir, count, root) {
  mkdirSync(join(dir, 'functions'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'build-scale', private: true, type: 'module' })}\n`,
  );
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(
    join(dir, 'functions/_shared.ts'),
    [
      '/** The helper every generated function calls. */',
      'export function greet(name: string, times: number): string {',
      '  return `hello ${name}`.repeat(times);',
      '}',
      '',
    ].join('\n'),
  );
  for (let i = 0; i < count; i++) {
    const name = functionName(i);
    const file = join(dir, 'functions', `${name}.ts`);
    mkdirSync(join(file, '..'), { recursive: true });
    const dependency = i === 0;
    writeFileSync(
      file,
      [
        "import { defineFunction } from 'cloudfn';",
        "import { z } from 'zod';",
        "import { greet } from '../_shared';",
        ...(dependency ? ["import semver from 'semver';"] : []),
        '',
        `export const config = { params: z.object({ name: z.string().min(1).default('f${i}'), times: z.coerce.number().int().min(1).max(5).default(1) }) };`,
        '',
        'export default defineFunction(config, (params) => ({',
        `  id: ${i},`,
        '  text: greet(params.name, params.times),',
        ...(dependency ? ["  valid: semver.valid('1.2.3'),"] : []),
        '}));',
        '',
      ].join('\n'),
    );
  }
}

/** Bytes of every file under `dir` (links not followed). */
export function folderBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

/**
 * esbuild's own one-pass time on the same code: the project's functions and the runtime's start
 * (what every bundle imports) as entries, one build with shared chunks, no plug-ins, no source
 * maps, `cloudfn` aliased to the built package.
 */
async function esbuildOnePass(esbuild, project, count, root, outdir) {
  const started = performance.now();
  await esbuild.build({
    entryPoints: [
      ...Array.from({ length: count }, (_, i) => join(project, 'functions', `${functionName(i)}.ts`)),
      join(root, 'dist/runtime/serve/bundle-entry.js'),
    ],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    alias: { cloudfn: join(root, 'dist/src/index.js') },
    absWorkingDir: project,
    logLevel: 'silent',
  });
  return performance.now() - started;
}

/**
 * Builds a generated project of `count` functions for each target and returns the figures:
 * `{ count, esbuildMs, server: { ms, bytes, bundles } | null, functionService: { ms, bytes } | null }`. The
 * function-service target is built only up to its 50-file limit.
 * @example const figures = await measureBuild({ root, work, count: 100 })
 */
export async function measureBuild({ root, work, count, buildOptions = {}, targets = ['server', 'function-service'] }) {
  const { buildProject, buildFunctionService } = await import(
    pathToFileURL(join(root, 'dist/src/build/index.js')).href
  );
  const esbuild = await import('esbuild');
  // A folder of its own: a row may build the same count again for the other target.
  const project = mkdtempSync(join(work, `build-scale-${count}-`));
  generateProject(project, count, root);
  const esbuildMs = await esbuildOnePass(esbuild, project, count, root, join(project, 'esbuild-out'));
  let started = performance.now();
  let server = null;
  if (targets.includes('server')) {
    const result = await buildProject(project, { outdir: 'dist', ...buildOptions });
    server = { ms: performance.now() - started, bytes: folderBytes(result.outdir), bundles: result.bundles.length };
  }
  let functionService = null;
  if (count <= 50 && targets.includes('function-service')) {
    started = performance.now();
    const fs = await buildFunctionService(project, {});
    functionService = { ms: performance.now() - started, bytes: folderBytes(fs.outdir) };
  }
  return {
    count,
    esbuildMs,
    server,
    functionService,
  };
}

const BUILD_BASELINE = 'esbuild, one pass on the same code';
/** The build group's rows: id, benchmark, baseline, goal (run-once.mjs lists them when not run). */
export const BUILD_ROWS = [
  ['build-10', 'cloudfn build, 10 generated functions', BUILD_BASELINE, undefined],
  ['build-100', 'cloudfn build, 100 generated functions', BUILD_BASELINE, undefined],
  ['build-300', 'cloudfn build, 300 generated functions', BUILD_BASELINE, '<= 5×'],
  ['build-fs-10', 'cloudfn build --target function-service, 10 generated functions', BUILD_BASELINE, undefined],
  ['build-fs-50', 'cloudfn build --target function-service, 50 generated functions', BUILD_BASELINE, undefined],
];

const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

/**
 * The build group of `npm run bench`: each row cloudfn's build time against esbuild's own
 * one-pass time on the same code, once (a build of 300 functions is long enough to need no
 * rounds); the note gives the size of the output folder. Per target: the server's `dist/` for
 * 10, 100 and 300 functions, the function service's folder for 10 and 50 (its limit).
 * @example rows.push(...(await buildRows({ root, work, progress: console.log })))
 */
export async function buildRows({ root, work, progress = () => {} }) {
  const rows = [];
  const row = ([id, benchmark, baseline, goal], ms, esbuildMs, note) =>
    ratioRow({
      id,
      benchmark,
      baseline,
      unit: 'ms',
      subject: [ms],
      base: [esbuildMs],
      goal: goal === undefined ? undefined : { op: '<=', value: 5 },
      note,
    });
  let ten;
  for (const [count, spec] of [
    [10, BUILD_ROWS[0]],
    [100, BUILD_ROWS[1]],
    [300, BUILD_ROWS[2]],
  ]) {
    const f = await measureBuild({ root, work, count, targets: ['server'] });
    ten ??= f;
    const growth = count === 10 ? '' : `, ${(f.server.bytes / ten.server.bytes).toFixed(2)}× that of 10 functions`;
    const note = `dist/ ${mb(f.server.bytes)}${growth}`;
    progress(`  ${count} functions: ${Math.round(f.server.ms)} ms, esbuild ${Math.round(f.esbuildMs)} ms; ${note}`);
    rows.push(row(spec, f.server.ms, f.esbuildMs, note));
  }
  for (const [count, spec] of [
    [10, BUILD_ROWS[3]],
    [50, BUILD_ROWS[4]],
  ]) {
    const f = await measureBuild({ root, work, count, targets: ['function-service'] });
    const note = `its folder ${mb(f.functionService.bytes)}`;
    progress(
      `  function service, ${count} functions: ${Math.round(f.functionService.ms)} ms, esbuild ${Math.round(f.esbuildMs)} ms; ${note}`,
    );
    rows.push(row(spec, f.functionService.ms, f.esbuildMs, note));
  }
  return rows;
}
