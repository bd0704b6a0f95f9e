/**
 * The names lazy chunks import from the folded chunks (src/build/chunk-imports.ts), read from the
 * import statements esbuild writes, minified and not; a file imported another way counts as
 * importing every export.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkImports } from '../../src/build/chunk-imports.js';
import { tempProject } from '../testing/project.js';

const BANNER = 'const __banner = 1;';
const project = tempProject({
  'minified.mjs': `${BANNER}\nimport{a as x,b}from"./shared.mjs";import"./effects.mjs";import{c as y}from"./other.mjs";var z=x+b;`,
  'spaced.mjs': `${BANNER}\nimport {\n  c as q,\n  d\n} from "./shared.mjs";\nimport "./effects.mjs";\nvar s = q + d;\n`,
  'reexports.mjs': `${BANNER}\nexport{e as f}from"./other.mjs";`,
  // Text in the code after the imports is not read: it is not an import statement.
  'string.mjs': `${BANNER}\nimport{a}from"./shared.mjs";var t='import{g}from"./other.mjs"';`,
});
afterAll(() => project.remove());

const at = (name: string): string => join(project.root, name);

describe('chunkImports', () => {
  it('reads the names imported from each chunk, minified and spaced out', () => {
    const { names, unread } = chunkImports(
      [at('minified.mjs'), at('spaced.mjs')],
      [at('shared.mjs'), at('effects.mjs')],
      () => [at('shared.mjs'), at('effects.mjs')],
      BANNER,
    );
    expect([...names.get(at('shared.mjs'))!].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect([...names.get(at('effects.mjs'))!]).toEqual([]);
    expect([...unread]).toEqual([]);
  });

  it('counts a chunk that a file imports in another way as wholly imported', () => {
    const { unread } = chunkImports([at('reexports.mjs')], [at('other.mjs')], () => [at('other.mjs')], BANNER);
    expect([...unread]).toEqual([at('other.mjs')]);
  });

  it('reads only the leading import statements, and only of the chunks asked about', () => {
    const { names, unread } = chunkImports([at('string.mjs')], [at('shared.mjs')], () => [at('shared.mjs')], BANNER);
    expect([...names.get(at('shared.mjs'))!]).toEqual(['a']);
    expect(unread.size).toBe(0);
  });
});
