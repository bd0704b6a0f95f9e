/**
 * The compile cache option (CLOUDFN_COMPILE_CACHE) and turning the cache on, each case in a
 * child process of the running Node: the cache is process-wide, and whether Node has it
 * (>= 22.1) decides what the child must report. CI runs this on Node 20 and on Node 24.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { optionEnvVars, resolveCompileCache } from '../../../runtime/options.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MODULE = join(ROOT, 'dist/runtime/serve/compile-cache.js');
const dir = mkdtempSync(join(tmpdir(), 'cloudfn-compile-cache-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
const hasCache = major > 22 || (major === 22 && minor >= 1);

describe('CLOUDFN_COMPILE_CACHE', () => {
  it('is a directory, off, or unset for Node’s default', () => {
    expect(resolveCompileCache({ env: { CLOUDFN_COMPILE_CACHE: '/var/cache/cloudfn' } })).toBe('/var/cache/cloudfn');
    expect(resolveCompileCache({ env: { CLOUDFN_COMPILE_CACHE: 'off' } })).toBe(false);
    expect(resolveCompileCache({ env: {} })).toBeUndefined();
    expect(optionEnvVars['compileCache']).toBe('CLOUDFN_COMPILE_CACHE');
  });

  it('refuses a blank value, naming the variable', () => {
    expect(() => resolveCompileCache({ env: { CLOUDFN_COMPILE_CACHE: '  ' } })).toThrow(
      /compileCache.*must be a non-empty string, got " {2}" \(from CLOUDFN_COMPILE_CACHE\)/,
    );
  });
});

/** Runs enableCompileCache in a fresh node with `env`, then imports `load`; returns its result. */
function inChild(env: Record<string, string>, load?: string): { status: string; directory?: string; message?: string } {
  const script = `const { enableCompileCache } = await import(${JSON.stringify(MODULE)});
const result = enableCompileCache(process.env);
${load === undefined ? '' : `await import(${JSON.stringify(load)});`}
process.stdout.write(JSON.stringify(result));`;
  const { NODE_COMPILE_CACHE: _ignored, ...rest } = process.env;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...rest, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

describe.skipIf(!existsSync(MODULE))('enableCompileCache (needs npm run build)', () => {
  it('is off when the option says off', () => {
    expect(inChild({ CLOUDFN_COMPILE_CACHE: 'off' })).toEqual({ status: 'off' });
  });

  it(`writes the cache into the directory on Node >= 22.1, does nothing before (here ${process.version})`, () => {
    const cache = join(dir, 'cache');
    const lib = join(dir, 'lib.mjs');
    writeFileSync(lib, 'export const x = 1;\n');
    const result = inChild({ CLOUDFN_COMPILE_CACHE: cache }, lib);
    if (hasCache) {
      expect(result).toMatchObject({ status: 'enabled' });
      expect(result.directory).toContain(cache);
      // Node flushes the cache at exit: the module loaded after enabling is in it.
      expect(readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
    } else {
      expect(result).toEqual({ status: 'unsupported' });
      expect(existsSync(cache)).toBe(false);
    }
  });

  it('reports a directory it cannot write, and a blank option, without throwing', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const result = inChild({ CLOUDFN_COMPILE_CACHE: join(file, 'cache') });
    if (hasCache) expect(result).toMatchObject({ status: 'failed' });
    else expect(result).toEqual({ status: 'unsupported' });
    expect(inChild({ CLOUDFN_COMPILE_CACHE: ' ' })).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('CLOUDFN_COMPILE_CACHE'),
    });
  });
});
