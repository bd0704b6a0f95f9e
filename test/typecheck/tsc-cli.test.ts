/**
 * Reading `tsc --pretty false` output (TypeScript 7 and later, which is run, not loaded):
 * located errors with their source line, indented continuation lines joined to their message,
 * errors without a file, and the watch-mode noise around them ignored.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseTscOutput } from '../../src/typecheck/tsc-cli.js';

const root = mkdtempSync(join(tmpdir(), 'cloudfn-tsc-out-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('turns each error into a diagnostic with its line, and ignores everything else', () => {
  mkdirSync(join(root, 'functions'));
  writeFileSync(join(root, 'functions/a.ts'), 'export {};\nconst x: { a: number } = { a: "1" };\n');
  const output = [
    '\u001b[2J\u001b[3J\u001b[H04:01:02 PM - Starting compilation in watch mode...',
    '',
    "functions/a.ts(2,29): error TS2322: Type 'string' is not assignable to type 'number'.",
    "  The expected type comes from property 'a' which is declared here on type '{ a: number; }'",
    "error TS5023: Unknown compiler option 'prot'.",
    "functions/gone.ts(1,1): error TS1005: ';' expected.",
    '04:01:03 PM - Found 3 errors. Watching for file changes.',
  ].join('\n');
  expect(parseTscOutput(output, root)).toEqual([
    {
      file: 'functions/a.ts',
      line: 2,
      column: 29,
      code: 'TS2322',
      message:
        "Type 'string' is not assignable to type 'number'.\nThe expected type comes from property 'a' which is declared here on type '{ a: number; }'",
      lineText: 'const x: { a: number } = { a: "1" };',
      length: 1,
    },
    {
      file: '',
      line: 0,
      column: 0,
      code: 'TS5023',
      message: "Unknown compiler option 'prot'.",
      lineText: '',
      length: 0,
    },
    {
      file: 'functions/gone.ts',
      line: 1,
      column: 1,
      code: 'TS1005',
      message: "';' expected.",
      lineText: '',
      length: 1,
    },
  ]);
  expect(parseTscOutput('04:01:03 PM - Found 0 errors. Watching for file changes.\n', root)).toEqual([]);
});
