#!/usr/bin/env node
/**
 * The build row on its own: generated projects of 10, 100 and 300 functions (or the counts
 * given), each built by what `npm run build` put in dist/ for both targets, with the time and
 * the size of the output against esbuild's own one-pass time on the same entries.
 *
 *   node test/bench/build-scale.mjs [10 50 100 300] [--per-function] [--root <folder>]
 *                                   [--target server|function-service]
 *
 * `--root` names another cloudfn (a folder holding its package.json, dist/ and node_modules),
 * to measure an earlier build with the same projects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureBuild } from './lib/build-scale.mjs';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const ROOT = rootAt === -1 ? fileURLToPath(new URL('../../', import.meta.url)) : args[rootAt + 1];
const targetAt = args.indexOf('--target');
const targets = targetAt === -1 ? ['server', 'function-service'] : [args[targetAt + 1]];
const counts = args.filter((a, i) => /^\d+$/.test(a) && (rootAt === -1 || i !== rootAt + 1)).map(Number);
const perFunction = args.includes('--per-function');
const work = mkdtempSync(join(tmpdir(), 'cloudfn-build-scale-'));
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
try {
  console.log(
    '| functions | esbuild, one pass | cloudfn build | ratio | dist/ | function-service (≤ 50) | its folder |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const count of counts.length > 0 ? counts : [10, 50, 100, 300]) {
    const f = await measureBuild({
      root: ROOT,
      work,
      count,
      buildOptions: perFunction ? { perFunction: true } : {},
      targets,
    });
    const fs = f.functionService;
    const sv = f.server;
    console.log(
      `| ${count} | ${s(f.esbuildMs)} | ${sv ? s(sv.ms) : '—'} | ${sv ? `${(sv.ms / f.esbuildMs).toFixed(1)}×` : '—'} | ${sv ? mb(sv.bytes) : '—'} | ${fs ? `${s(fs.ms)} (${(fs.ms / f.esbuildMs).toFixed(1)}×)` : '—'} | ${fs ? mb(fs.bytes) : '—'} |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
