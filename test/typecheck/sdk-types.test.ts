/**
 * A project importing `@open-dy/node-server-sdk` without the package (issue 30): its own `tsc`
 * reported TS2307 while `cloudfn dev` said the types were fine. With the `cloudfn-env.d.ts` that
 * `init --layout platform` writes, `tsc` (as `npm run typecheck` and the editor run it) and
 * cloudfn's own check agree that it is clean, with no `paths`; without it, `tsc` reproduces the
 * issue. The project is the sdk-project fixture, with cloudfn installed as a link to this copy.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_ENV_FILE, SDK_ENV_TEXT } from '../../src/init/platform-layout.js';
import { checkProject } from '../../src/typecheck/index.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';

const fixture = new URL('../fixtures/sdk-project/', import.meta.url).pathname;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  ensureDist();
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-sdk-types-'));
  temps.push(dir);
  cpSync(fixture, dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO, join(dir, 'node_modules', 'cloudfn'), 'dir');
  // The project's own TypeScript, which cloudfn's check uses as tsc does.
  symlinkSync(join(REPO, 'node_modules', 'typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
  return dir;
}

/** `tsc --noEmit -p <dir>`: its exit code and output. */
function runTsc(dir: string): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync(process.execPath, [tsc, '--noEmit', '-p', dir], { encoding: 'utf8' }) };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { code: failed.status, output: failed.stdout };
  }
}

describe('the server SDK in a project’s own type check', () => {
  it('is the declaration init writes, kept in the fixture', () => {
    expect(
      execFileSync('cat', [join(fixture, SDK_ENV_FILE)], { encoding: 'utf8' }),
      'test/fixtures/sdk-project/cloudfn-env.d.ts',
    ).toBe(SDK_ENV_TEXT);
  });

  it('with cloudfn-env.d.ts: tsc and cloudfn’s check are both clean', async () => {
    const dir = project();
    expect(runTsc(dir)).toEqual({ code: 0, output: '' });
    const result = await checkProject(dir);
    expect(result.checked ? result.diagnostics : result.reason).toEqual([]);
  }, 60_000);

  it('catches a misuse of the SDK through those types', () => {
    const dir = project();
    writeFileSync(
      join(dir, 'misuse.ts'),
      "import { dySDK } from '@open-dy/node-server-sdk';\nexport default async () => dySDK.context({ headers: {} }).getContext().roomid;\n",
    );
    const { code, output } = runTsc(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/misuse\.ts.*Property 'roomid' does not exist/);
  }, 60_000);

  it('without it: tsc reports TS2307 for each importing file, as issue 30 saw', () => {
    const dir = project();
    rmSync(join(dir, SDK_ENV_FILE));
    const { code, output } = runTsc(dir);
    expect(code).not.toBe(0);
    expect(output.match(/TS2307: Cannot find module '@open-dy\/node-server-sdk'/g)).toHaveLength(2);
  }, 60_000);
});
