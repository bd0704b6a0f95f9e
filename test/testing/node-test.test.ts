/**
 * cloudfn/testing under node:test: a small node:test file, importing the built package by its
 * name, run with `node --test` as a user would.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/testing/load-target.js';
import { REPO, ensureDist } from './ensure-dist.js';

beforeAll(() => ensureDist(), 120_000);

it('passes under node --test and leaves no compiled files behind', () => {
  const file = join(REPO, 'test/testing/node-test/hello.node-test.mjs');
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.stdout).toMatch(/# pass 3\n/);
  expect(run.stdout).toMatch(/# fail 0\n/);
  expect(run.status).toBe(0);
  // Each compiled copy of hello.ts is deleted once imported.
  const left = join(findProjectRoot(join(REPO, 'templates/starter/functions')), '.cloudfn/testing');
  const files = existsSync(left) ? readdirSync(left) : [];
  expect(files.filter((name) => name.startsWith('hello.'))).toEqual([]);
});
