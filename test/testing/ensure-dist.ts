/**
 * Tests that run the package as users get it (node:test against `cloudfn/testing`, the CLI,
 * `npm pack`) need dist/. `npm test` builds it first; when it is missing or older than the
 * sources (a local run), it is rebuilt here, once, under a lock shared by parallel test files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REPO = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function fresh(): boolean {
  const marker = join(REPO, 'dist/src/testing/index.js');
  const needed = [
    'dist/src/cli/index.js',
    'dist/src/build/index.js',
    'dist/src/client/index.js',
    'dist/runtime/index.js',
  ];
  if (!existsSync(marker) || needed.some((file) => !existsSync(join(REPO, file)))) return false;
  const built = statSync(marker).mtimeMs;
  return newestSource(join(REPO, 'runtime')) <= built && newestSource(join(REPO, 'src')) <= built;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds dist/ with tsc unless it is up to date. Type errors in files being edited do not stop the emit. */
export function ensureDist(): void {
  if (fresh()) return;
  const lock = join(tmpdir(), `cloudfn-dist-${Buffer.from(REPO).toString('hex').slice(-16)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than two minutes belongs to a run that died.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 120_000)
        rmSync(lock, { recursive: true, force: true });
      sleep(200);
    }
  }
  try {
    if (fresh()) return;
    try {
      execFileSync(
        process.execPath,
        [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.json')],
        { cwd: REPO, stdio: 'pipe' },
      );
    } catch {
      // tsc exits non-zero on type errors but still emits; the check below is what matters.
    }
    if (!existsSync(join(REPO, 'dist/src/testing/index.js')))
      throw new Error('tsc did not emit dist/src/testing/index.js; run npm run build to see why');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
