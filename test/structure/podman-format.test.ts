/**
 * Every `podman build` the project runs or tells users to run passes `--format docker`:
 * podman's default OCI format drops the templates' `HEALTHCHECK` (issue 53).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const ROOTS = ['docs', 'templates', 'test', 'src', '.ci', 'README.md'];

function* files(path: string): Generator<string> {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (stat.isFile()) {
    if (/\.(md|ts|mts|mjs|js|sh|ya?ml)$|Dockerfile$/.test(path)) yield path;
    return;
  }
  for (const name of readdirSync(path)) if (name !== 'node_modules' && name !== 'dist') yield* files(join(path, name));
}

describe('podman build', () => {
  it('is always given --format docker, in scripts and docs', () => {
    const found: string[] = [];
    const bare: string[] = [];
    for (const root of ROOTS)
      for (const file of files(join(REPO, root))) {
        if (file.endsWith('podman-format.test.ts')) continue;
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(/podman build[^\n]*|'podman',\s*\[\s*'build'[^\n]*/g)) {
          found.push(relative(REPO, file));
          if (!/--format[ =']+,?\s*'?docker/.test(match[0])) bare.push(`${relative(REPO, file)}: ${match[0]}`);
        }
      }
    expect(found.length).toBeGreaterThan(0);
    expect(bare).toEqual([]);
  });
});
