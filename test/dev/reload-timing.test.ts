import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProject, type DevProject } from './project.js';

const SAVES = 30;

function hello(version: number): string {
  return `import { greet } from './_lib/greet';
export const version = ${version};
export default async function hello(params: { name?: string }) {
  return { message: greet(params.name ?? 'world'), version };
}
`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/**
 * Save-to-served: the time from writing a function file to the first response that comes from
 * the saved code, polling as a developer's browser or curl would. The official benchmark of the
 * 250 ms goal is in test/bench, on a quiet machine; here, where other test files (or another
 * `npm test`) share the CPU, the bound is four times the goal: generous enough not to fail on a
 * loaded machine, tight enough to catch a reload that rebuilds the whole project or waits on a
 * long debounce (seconds).
 */
const GOAL_MS = 250;
const BOUND_MS = 4 * GOAL_MS;
describe('save-to-served', () => {
  let p: DevProject;
  beforeAll(async () => {
    p = await startProject();
  });
  afterAll(() => p.close());

  it(`has a median under ${BOUND_MS} ms (goal ${GOAL_MS} ms, measured in test/bench) over ${SAVES} saves`, async () => {
    const times: number[] = [];
    let stale = 0;
    for (let version = 2; version < SAVES + 2; version++) {
      const started = performance.now();
      p.write('functions/hello.ts', hello(version));
      for (;;) {
        const answer = await p.get('/hello');
        if (answer.json?.version === version) break;
        stale++;
        if (performance.now() - started > 20_000) throw new Error(`version ${version} was not served within 20 s`);
      }
      times.push(performance.now() - started);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = percentile(sorted, 50);
    console.log(
      `save-to-served over ${SAVES} saves: median ${median.toFixed(1)} ms, p90 ${percentile(sorted, 90).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms; ${stale} polls answered by the old code`,
    );
    expect(median).toBeLessThan(BOUND_MS);
  }, 120_000);
});
