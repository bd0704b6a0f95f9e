/**
 * runtime/options.ts is the one place runtime options are read: the pieces beside it in
 * runtime/options/ (the type, the validators, picking, the limits, the dev user) are imported
 * through it, never directly from elsewhere in runtime/, src/ or test/.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const PIECES = join(REPO, 'runtime', 'options');
const ENTRY = join(REPO, 'runtime', 'options.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'fixtures') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });
}

const SPECIFIER = /\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

it('imports runtime/options/ only through runtime/options.ts', () => {
  const files = ['runtime', 'src', 'test'].flatMap((dir) => sourceFiles(join(REPO, dir)));
  const direct = files
    .filter((file) => file !== ENTRY && !file.startsWith(PIECES + '/'))
    .flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
        .map((match) => resolve(dirname(file), match[1] ?? match[2]!))
        .filter((target) => target.startsWith(PIECES + '/'))
        .map((target) => `${relative(REPO, file)} -> ${relative(REPO, target)}`),
    );
  expect(direct).toEqual([]);
  // The parser sees the entry's own imports of the pieces.
  expect([...readFileSync(ENTRY, 'utf8').matchAll(SPECIFIER)].map((m) => m[1])).toContain('./options/limits.js');
});
