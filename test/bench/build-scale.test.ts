/**
 * The build row's short form (issue 56; `node test/bench/build-scale.mjs` is the long one):
 * generated projects of 10 and 40 functions built for both targets. Bounds are ratios, never
 * times: the build against esbuild's own one-pass time on the same entries (a build per function
 * was over 100× that), the function service against the server build of the same project, and
 * the container's `dist/` of 40 functions against that of 10 (a copy of the runtime per function
 * made it grow four times).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { type BuildFigures, measureBuild } from './lib/build-scale.mjs';

const work = mkdtempSync(join(tmpdir(), 'cloudfn-build-scale-test-'));
const figures: BuildFigures[] = [];

beforeAll(async () => {
  ensureDist();
  for (const count of [10, 40]) figures.push(await measureBuild({ root: REPO, work, count }));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cloudfn build of many functions', () => {
  it('takes one pass per target: within 20× of esbuild bundling the same entries', () => {
    const [, forty] = figures as [BuildFigures, BuildFigures];
    expect(forty.server!.bundles).toBe(1);
    expect(forty.server!.ms / forty.esbuildMs).toBeLessThan(20);
    expect(forty.functionService!.ms / forty.esbuildMs).toBeLessThan(20);
  });

  it('builds the function service without printing the shared code once per file: within 2× the server build', () => {
    // Both are cloudfn's, on the same project and machine. Printing each CommonJS file whole took
    // 2.5× to 4.2× the server build at 40 to 50 functions (each file carries zod and the
    // runtime); one split pass put together per file takes 0.4× to 1.5×.
    const [, forty] = figures as [BuildFigures, BuildFigures];
    expect(forty.functionService!.ms / forty.server!.ms).toBeLessThan(2);
  });

  it("grows the container's dist/ by the functions' own code only", () => {
    const [ten, forty] = figures as [BuildFigures, BuildFigures];
    expect(forty.server!.bytes / ten.server!.bytes).toBeLessThan(1.5);
  });
});
