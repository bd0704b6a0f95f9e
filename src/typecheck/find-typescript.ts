/**
 * Whether a project can be type checked: it has a `tsconfig.json` and TypeScript resolves from
 * its folder (its own devDependency, never cloudfn's copy, so the version is the project's), and
 * which way that version is driven: its compiler API (5.x, 6.x) or its `tsc` binary (7 and later,
 * native, whose package exports no compiler API).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The oldest TypeScript that reads the tsconfig options and the `.d.ts` syntax cloudfn ships. */
export const OLDEST_TYPESCRIPT = 5;

/** What `findTypeScript` found: the paths to use, or the one-line reason there are none. */
export type TypeScriptSetup =
  | {
      ok: true;
      tsconfig: string;
      /** The entry point (`typescript.js` for `api`, the package's version stub for `cli`). */
      typescript: string;
      /** `7.0.2` */
      version: string;
      /** `api`: load it and call `createProgram`; `cli`: run `tsc` and read what it prints. */
      engine: 'api' | 'cli';
      /** The package's `tsc` script, run with this Node. */
      tsc: string;
    }
  | { ok: false; reason: string };

/**
 * Looks for `<root>/tsconfig.json` and the `typescript` package resolvable from `root`.
 * @example findTypeScript('/srv/app') // { ok: true, tsconfig: '/srv/app/tsconfig.json', version: '5.9.3', engine: 'api', ... }
 */
export function findTypeScript(root: string): TypeScriptSetup {
  const tsconfig = join(root, 'tsconfig.json');
  if (!existsSync(tsconfig))
    return { ok: false, reason: `no tsconfig.json in ${root} (add one to have types checked)` };
  const require = createRequire(join(root, 'package.json'));
  let manifestPath: string;
  try {
    manifestPath = require.resolve('typescript/package.json');
  } catch {
    return {
      ok: false,
      reason: `typescript is not installed in ${root} (npm install -D typescript to have types checked)`,
    };
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: unknown; bin?: unknown };
  const version = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  const major = Number.parseInt(version, 10);
  if (!(major >= OLDEST_TYPESCRIPT))
    return {
      ok: false,
      reason: `TypeScript ${version} is older than ${OLDEST_TYPESCRIPT}.0, the oldest that checks cloudfn's types (npm install -D typescript@latest to have types checked)`,
    };
  const bin = (manifest.bin as { tsc?: string } | undefined)?.tsc ?? 'bin/tsc';
  return {
    ok: true,
    tsconfig,
    typescript: require.resolve('typescript'),
    version,
    engine: major >= 7 ? 'cli' : 'api',
    tsc: join(dirname(manifestPath), bin),
  };
}
