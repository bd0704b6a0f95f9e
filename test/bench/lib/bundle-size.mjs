/**
 * The bundle-size row: the hello function of test/bench/fixtures/hello-project (the one the
 * cold-start row starts) built as `cloudfn build --minify --per-function` builds it, by `buildProject` of
 * dist/src/build, and the bytes node loads at start: `hello/index.mjs` and the chunks it
 * imports statically (buildProject's `bytes`). Chunks read only on first use (`lazyBytes`:
 * multipart, raw-body, cookie) are in the note, not counted.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { skippedRow, valueRow } from './rows.mjs';

const BENCHMARK = 'hello bundle, minified (cloudfn build --minify)';
/** kB here are 1000 bytes (docs/decisions.md). */
const GOAL = { op: '<=', value: 60 };

/** Builds the hello bundle minified into `work` and returns its row. */
export async function bundleSizeRow({ root, work }) {
  const entry = join(root, 'dist/src/build/index.js');
  if (!existsSync(entry))
    return skippedRow({
      id: 'bundle',
      benchmark: BENCHMARK,
      baseline: '—',
      goal: `${GOAL.op} ${GOAL.value} kB`,
      reason: 'dist/src/build is missing: run npm run build',
    });
  const { buildProject } = await import(pathToFileURL(entry).href);
  const outdir = join(work, 'bundle-size');
  const result = await buildProject(join(root, 'test/bench/fixtures/hello-project'), {
    outdir,
    minify: true,
    sourcemap: false,
    server: false,
    perFunction: true,
  });
  const hello = result.bundles.find((bundle) => bundle.name === 'hello');
  if (hello === undefined) throw new Error('buildProject wrote no hello bundle');
  return valueRow({
    id: 'bundle',
    benchmark: BENCHMARK,
    unit: 'kB',
    subject: [hello.bytes / 1000],
    goal: GOAL,
    note: `at start ${hello.bytes} bytes (${hello.gzipBytes} gzipped); ${hello.lazyBytes} bytes more in chunks read on first use`,
  });
}
