/**
 * Reads `cloudfn.config.(ts|mts|js|mjs|json)` at a project's root: global options, per-function
 * options and custom routes. Unknown keys stop start-up, since a typo would silently be ignored.
 * The runtime cannot compile TypeScript: a `.ts` config is turned into JavaScript by the compile
 * hook the CLI passes (esbuild, in src/build), as functions are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findJsonError } from '../body/json-error.js';
import { closest } from '../closest.js';
import { createError } from '../errors.js';
import { configOptionTable, LIMIT_KEYS } from '../options.js';
import { type CompileHook, validateConfig } from './load.js';
import type { FunctionConfig } from '../types.js';

/** The file's shape. Every key is optional. */
export interface ConfigFile {
  /** Custom routes, path-to-regexp pattern → function name: `{ "/videos/:vid": "videos/get" }`. */
  routes?: Record<string, string>;
  /** Per-function options by name, as an alternative to `export const config`. */
  functions?: Record<string, FunctionConfig>;
  /** Any runtime option (port, host, timeout, limits, logidHeader, ...), see docs/configuration.md. */
  [option: string]: unknown;
}

/** The file names a project may use (one of them). */
export const CONFIG_FILES = [
  'cloudfn.config.ts',
  'cloudfn.config.mts',
  'cloudfn.config.js',
  'cloudfn.config.mjs',
  'cloudfn.config.json',
] as const;

/** The name the compile hook is given for a TypeScript config (its output is `<name>.mjs`). */
export const CONFIG_COMPILE_NAME = '.cloudfn.config';

/**
 * The keys of a config file: `$schema` (for editors, ignored), routes, functions, limits, every
 * option of the option table that a config file may set, and the `extra` keys of the server's
 * extensions and the tooling (the dev user, the live rooms' `liveData`, `checkRequests`), which
 * they read and the runtime ignores.
 */
export function configFileKeys(extra: readonly string[] = []): string[] {
  return ['$schema', 'routes', 'functions', 'limits', ...configOptionTable().map((row) => row.name), ...extra];
}

/** How `loadConfigFile` reads a project's config. */
export interface LoadConfigOptions {
  /**
   * Turns `cloudfn.config.ts`/`.mts` into an importable file (the CLI passes esbuild's). Without
   * it a TypeScript config is an error that says to run it through the CLI.
   * @default undefined
   */
  compile?: CompileHook;
  /** The top-level keys the extensions and the tooling read (`configFileKeys`' `extra`). @default none */
  configKeys?: readonly string[];
}

/** The error for a key no option has: the likely one when it is a typo, else the list. */
function unknownKey(name: string, key: string, known: readonly string[], prefix = ''): Error {
  const guess = closest(key, known);
  return createError(
    'CLOUDFN_BAD_CONFIG',
    name,
    guess === undefined
      ? `${prefix}${key} is not an option; the options are ${known.join(', ')}`
      : `${prefix}${key} is not an option; did you mean ${prefix}${guess}? (the options are ${known.join(', ')})`,
  );
}

/**
 * A JSON syntax error as `file:line:column`, what was found, and a code frame of that line.
 * @example jsonError('cloudfn.config.json', '{"a": }', 6) // cloudfn.config.json:1:7: unexpected '}' ...
 */
function jsonError(name: string, text: string, at: number): Error {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const lineText = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const found = at >= text.length ? 'end of file' : JSON.stringify(text[at]);
  const gutter = ' '.repeat(String(line).length);
  const frame = `  ${line} | ${lineText}\n  ${gutter} | ${' '.repeat(column - 1)}^`;
  const hint = /,\s*$/.test(before)
    ? ' (JSON allows no comma before a closing bracket)'
    : /^\/[/*]/.test(text.slice(at, at + 2))
      ? ' (JSON has no comments; use cloudfn.config.mjs for them)'
      : '';
  return createError(
    'CLOUDFN_BAD_CONFIG',
    `${name}:${line}:${column}`,
    `is not valid JSON: unexpected ${found}${hint}\n${frame}`,
  );
}

/**
 * Loads the config file of `root`, or `{}` when there is none.
 * @example const config = await loadConfigFile(process.cwd())
 */
export async function loadConfigFile(
  root: string,
  options: LoadConfigOptions = {},
): Promise<ConfigFile & { file?: string }> {
  const found = CONFIG_FILES.filter((candidate) => existsSync(join(root, candidate)));
  const name = found[0];
  if (name === undefined) return {};
  if (found.length > 1)
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      found.join(' and '),
      `are both config files; keep one (cloudfn reads only one, so the other would be ignored)`,
    );
  const file = join(root, name);
  const typescript = name.endsWith('ts');
  if (typescript && options.compile === undefined)
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      name,
      'is TypeScript, which only the cloudfn CLI compiles (cloudfn dev, start or build; a bundle carries its config built in); from code, pass loadConfigFile(root, { compile })',
    );
  let config: unknown;
  // Compile errors come formatted with their code frame from the hook; they are not rewrapped.
  const source = typescript ? await options.compile!(file, CONFIG_COMPILE_NAME) : file;
  try {
    if (name.endsWith('.json')) {
      const text = readFileSync(file, 'utf8');
      const at = findJsonError(text);
      if (at !== -1) throw jsonError(name, text, at);
      config = JSON.parse(text);
    } else {
      config = ((await import(pathToFileURL(source).href)) as { default?: unknown }).default;
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === 'CLOUDFN_BAD_CONFIG') throw error;
    throw createError('CLOUDFN_BAD_CONFIG', name, `cannot be read: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw createError('CLOUDFN_BAD_CONFIG', name, 'must hold an object (export default { ... } or a JSON object)');
  }
  const known = configFileKeys(options.configKeys);
  for (const key of Object.keys(config)) if (!known.includes(key)) throw unknownKey(name, key, known);
  const result = config as ConfigFile;
  const limits = result['limits'];
  if (limits !== undefined) {
    if (typeof limits !== 'object' || limits === null || Array.isArray(limits))
      throw createError('CLOUDFN_BAD_CONFIG', name, 'limits must be an object such as { "maxBodySize": 1048576 }');
    for (const key of Object.keys(limits))
      if (!LIMIT_KEYS.includes(key as never)) throw unknownKey(name, key, LIMIT_KEYS, 'limits.');
  }
  if (result.routes !== undefined && (typeof result.routes !== 'object' || result.routes === null)) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      name,
      'routes must be an object of pattern → function name, e.g. { "/videos/:vid": "videos/get" }',
    );
  }
  for (const [fn, value] of Object.entries(result.functions ?? {})) {
    const checked = validateConfig(value, `${name} functions.${fn}`);
    // A schema is code: a bundle bakes this file's options in as JSON, where it would be lost.
    for (const key of ['params', 'result'] as const)
      if (checked[key] !== undefined)
        throw createError(
          'CLOUDFN_BAD_CONFIG',
          name,
          `functions.${fn}.${key} cannot be declared here; declare it in the function's own module: export const config = { ${key}: schema }`,
        );
  }
  const { $schema: _schema, ...rest } = result;
  return { ...rest, file };
}

/**
 * Stops start-up when `functions` in the config file names a function the project does not
 * have: a typo there would silently leave the real function without its options.
 * @example checkFunctionNames(config, ['hello', 'upload'])
 */
export function checkFunctionNames(config: ConfigFile & { file?: string }, names: readonly string[]): void {
  const known = new Set(names);
  for (const name of Object.keys(config.functions ?? {})) {
    if (known.has(name)) continue;
    const where = config.file === undefined ? 'cloudfn.config' : basename(config.file);
    const list = names.length === 0 ? 'there are none yet' : `the functions are ${[...names].sort().join(', ')}`;
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      where,
      `functions.${name} names no function of this project (${list}); use a name from functions/, e.g. functions/videos/list.ts is "videos/list"`,
    );
  }
}
