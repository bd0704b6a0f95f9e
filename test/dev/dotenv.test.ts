import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DotenvLayer, parseDotenv } from '../../src/dev/index.js';

describe('parseDotenv', () => {
  it.each([
    ['A=1', { A: '1' }],
    ['export A = spaced value  ', { A: 'spaced value' }],
    ['A=value # comment', { A: 'value' }],
    ['A=pass#word', { A: 'pass#word' }],
    ['A="quoted # not a comment" # comment', { A: 'quoted # not a comment' }],
    ["A='single $HOME \\n'", { A: 'single $HOME \\n' }],
    ['A="line\\nbreak \\"q\\" \\\\ tab\\t"', { A: 'line\nbreak "q" \\ tab\t' }],
    ['A="multi\nline"\nB=2', { A: 'multi\nline', B: '2' }],
    ['A=`back tick`', { A: 'back tick' }],
    ['A=', { A: '' }],
    ['A=1\nA=2', { A: '2' }],
    ['\uFEFF# comment\r\n\r\nA=crlf\r\n', { A: 'crlf' }],
    ['DOTTED.KEY-x=1', { 'DOTTED.KEY-x': '1' }],
  ])('%j', (text, values) => {
    const parsed = parseDotenv(text);
    expect({ ...parsed.values }).toEqual(values);
    expect(parsed.problems).toEqual([]);
  });

  it('reports lines it cannot read, with their numbers, and keeps the rest', () => {
    const parsed = parseDotenv('A=1\nnot an assignment\nB="open\nC=3');
    expect({ ...parsed.values }).toEqual({ A: '1', C: '3' });
    expect(parsed.problems).toEqual([
      'line 2: expected KEY=value, got "not an assignment"',
      'line 3: the value of B opens a " quote that is never closed',
    ]);
  });

  it('counts lines across multi-line values', () => {
    expect(parseDotenv('A="x\ny"\n\nbad line').problems).toEqual(['line 4: expected KEY=value, got "bad line"']);
  });
});

describe('DotenvLayer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-dotenv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never overrides the real environment, and follows the file as it changes', () => {
    const file = join(dir, '.env');
    const env: NodeJS.ProcessEnv = { REAL: 'from the shell' };
    writeFileSync(file, 'REAL=from file\nONLY_FILE=1\nGONE=soon\n');
    const layer = new DotenvLayer(file, env);
    expect(layer.load()).toEqual({ problems: [], changed: ['ONLY_FILE', 'GONE'], skipped: ['REAL'] });
    expect(env).toEqual({ REAL: 'from the shell', ONLY_FILE: '1', GONE: 'soon' });

    writeFileSync(file, 'REAL=again\nONLY_FILE=2\n');
    expect(layer.load().changed.sort()).toEqual(['GONE', 'ONLY_FILE']);
    expect(env).toEqual({ REAL: 'from the shell', ONLY_FILE: '2' });

    layer.unload();
    expect(env).toEqual({ REAL: 'from the shell' });
  });

  it('treats a missing file as empty', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(new DotenvLayer(join(dir, 'missing.env'), env).load()).toEqual({ problems: [], changed: [], skipped: [] });
    expect(env).toEqual({});
  });
});
