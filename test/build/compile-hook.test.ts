/**
 * `cloudfn start`'s compile hook writes each compiled function whole or not at all: two
 * instances started on one project (the fleet test does so) compile into the same folder, and
 * one imported the other's file while it was being rewritten in place (a module without a
 * default export, seen once in CI).
 */
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompileHook } from '../../src/build/compile.js';
import { tempProject } from '../testing/project.js';

const project = tempProject({ 'functions/hello.ts': 'export default () => ({ version: 1 });\n' });
afterAll(() => project.remove());

describe('createCompileHook', () => {
  it('replaces the compiled file rather than rewriting it: a reader of the old one reads it whole', async () => {
    const compile = createCompileHook(project.root);
    const source = join(project.root, 'functions/hello.ts');
    const outfile = await compile(source, 'hello');
    const first = readFileSync(outfile, 'utf8');
    expect(first).toContain('version: 1');
    // A reader that opened the file before the next compile (an import in another process).
    const fd = openSync(outfile, 'r');
    try {
      writeFileSync(source, 'export default () => ({ version: 2 });\n');
      expect(await compile(source, 'hello')).toBe(outfile);
      // Rewritten in place, the old descriptor would read the new text (or a part of it).
      expect(readFileSync(fd, 'utf8')).toBe(first);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(outfile, 'utf8')).toContain('version: 2');
    // No temporary file is left beside it.
    expect(readdirSync(join(outfile, '..'))).toEqual(['hello.mjs']);
  });

  it('compiles concurrently into one folder, each import seeing a whole module', async () => {
    const source = join(project.root, 'functions/hello.ts');
    const compiles = Array.from({ length: 6 }, () => createCompileHook(project.root)(source, 'hello'));
    const outfiles = await Promise.all(compiles);
    const text = readFileSync(outfiles[0]!, 'utf8');
    expect(text).toContain('export {');
    expect(text).toMatch(/sourceMappingURL=data:application\/json;base64,[A-Za-z0-9+/=]+\n$/);
    expect(readdirSync(join(outfiles[0]!, '..'))).toEqual(['hello.mjs']);
  });
});
