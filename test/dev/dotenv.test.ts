import { execFileSync } from 'node:child_process';
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
    ['A=pass#word', { A: 'pass' }],
    ['A="pass#word"', { A: 'pass#word' }],
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

describe('parseDotenv and node --env-file read comments alike', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-dotenv-node-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Lines on which dotenv and Node agree; production reads .env with one of them.
  const lines = [
    'HASH_INSIDE=a#b',
    'HASH_AFTER_SPACE=a #b',
    'HASH_FIRST=#b',
    'SPACE_THEN_HASH= #b',
    'TWO_HASHES=x#y#z',
    'URL=https://example.com/path#frag',
    'DOUBLE="q#x" # c',
    "SINGLE='q #x'",
    'PLAIN=value   ',
  ];

  it('gives the values that node --env-file gives for the same file', () => {
    const file = join(dir, '.env');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const keys = lines.map((line) => line.slice(0, line.indexOf('=')));
    const fromNode = JSON.parse(
      execFileSync(
        process.execPath,
        [
          `--env-file=${file}`,
          '-e',
          'const k = JSON.parse(process.argv[1]); console.log(JSON.stringify(Object.fromEntries(k.map((n) => [n, process.env[n]]))))',
          JSON.stringify(keys),
        ],
        { encoding: 'utf8', env: {} },
      ),
    ) as Record<string, string>;
    expect({ ...parseDotenv(`${lines.join('\n')}\n`).values }).toEqual(fromNode);
    expect(fromNode.HASH_INSIDE).toBe('a');
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
