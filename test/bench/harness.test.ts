/**
 * The benchmark harness, run briefly: it must produce the table with every row and a
 * results.json that says what it measured. Speeds are never asserted here: they belong to
 * `npm run bench` on a quiet machine (docs/performance.md).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(join(ROOT, 'dist/runtime/index.js')) && existsSync(join(ROOT, 'dist/src/sign/index.js'));
const dir = mkdtempSync(join(tmpdir(), 'cloudfn-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BENCHMARKS = [
  'GET tiny function',
  'POST JSON echo, 1 KB',
  'multipart upload, one 8 MiB file',
  'signRequest',
  'verifyResponse',
  'cold start: node dist/hello/index.mjs to first 200',
  'dev reload: save until the new code answers',
  'dev reload with the type checker on',
  'dev type check: save until the type error is shown',
  'peak RSS under the GET load',
  'peer: the same GET on @google-cloud/functions-framework',
];

interface Row {
  id: string;
  benchmark: string;
  status: 'measured' | 'invalid' | 'skipped';
  ratio?: number;
  ratios?: number[];
  cloudfn?: { median: number; rounds: number[] };
  base?: { median: number; rounds: number[] };
  reason?: string;
}

describe.skipIf(!built)('npm run bench (a short run; needs npm run build)', () => {
  it('prints the table with every row and writes results.json', async () => {
    const out = join(dir, 'results.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'test/bench/run.mjs'),
        '--load',
        'autocannon',
        '--rounds',
        '3',
        '--seconds',
        '0.2',
        '--warmup',
        '0',
        '--only',
        'get,sign',
        '--out',
        out,
        '--quiet',
      ],
      { timeout: 60_000 },
    );
    const header = stdout.split('\n').find((line) => line.startsWith('| benchmark'));
    expect(header).toBe(
      '| benchmark | cloudfn (median) | baseline (median) | ratio | goal | met | ratio by CPU time |',
    );
    for (const name of BENCHMARKS) expect(stdout).toContain(`| ${name} |`);

    const results = JSON.parse(readFileSync(out, 'utf8')) as {
      machine: { nproc: number; cpu: string; node: string };
      rows: Row[];
      table: string;
    };
    expect(results.machine.node).toBe(process.version);
    expect(results.machine.nproc).toBeGreaterThan(0);
    expect(results.rows.map((row) => row.benchmark).sort()).toEqual([...BENCHMARKS].sort());
    const byId = new Map(results.rows.map((row) => [row.id, row]));
    for (const id of ['get', 'memory', 'peer', 'sign', 'verify']) {
      const row = byId.get(id)!;
      expect(row.status, `${id}: ${JSON.stringify(row)}`).toBe('measured');
      expect(row.cloudfn!.rounds).toHaveLength(3);
      expect(row.base!.rounds).toHaveLength(3);
      expect(row.ratio).toBeGreaterThan(0);
      expect(Number.isFinite(row.ratio)).toBe(true);
    }
    for (const id of ['json', 'upload', 'cold', 'reload', 'reload-typecheck', 'typecheck-error']) {
      expect(byId.get(id)).toMatchObject({ status: 'skipped', reason: 'not run (--only get,sign)' });
    }
    expect(results.table).toContain('| GET tiny function |');
  }, 45_000);
});
