/**
 * Reads `cloudfn.config.(js|mjs|json)` at a project's root: global options, per-function
 * options and custom routes. Unknown keys stop start-up, since a typo would silently be ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findJsonError } from '../body/json-error.js';
import { createError } from '../errors.js';
import { validateConfig } from './load.js';
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

/** The file names tried, in order. */
export const CONFIG_FILES = ['cloudfn.config.js', 'cloudfn.config.mjs', 'cloudfn.config.json'] as const;

const OPTION_KEYS = new Set([
  'routes',
  'functions',
  'limits',
  'port',
  'host',
  'timeout',
  'maxHeaderSize',
  'headersTimeout',
  'requestTimeout',
  'keepAliveTimeout',
  'shutdownTimeout',
  'drainDelay',
  'logidHeader',
  'triggerHeader',
  'protoAction',
  'metrics',
]);

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
export async function loadConfigFile(root: string): Promise<ConfigFile & { file?: string }> {
  const name = CONFIG_FILES.find((candidate) => existsSync(join(root, candidate)));
  if (name === undefined) return {};
  const file = join(root, name);
  let config: unknown;
  try {
    if (name.endsWith('.json')) {
      const text = readFileSync(file, 'utf8');
      const at = findJsonError(text);
      if (at !== -1) throw jsonError(name, text, at);
      config = JSON.parse(text);
    } else {
      config = ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === 'CLOUDFN_BAD_CONFIG') throw error;
    throw createError('CLOUDFN_BAD_CONFIG', name, `cannot be read: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw createError('CLOUDFN_BAD_CONFIG', name, 'must hold an object (export default { ... } or a JSON object)');
  }
  for (const key of Object.keys(config)) {
    if (!OPTION_KEYS.has(key))
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        name,
        `${key} is not an option; the options are ${[...OPTION_KEYS].join(', ')}`,
      );
  }
  const result = config as ConfigFile;
  if (result.routes !== undefined && (typeof result.routes !== 'object' || result.routes === null)) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      name,
      'routes must be an object of pattern → function name, e.g. { "/videos/:vid": "videos/get" }',
    );
  }
  for (const [fn, value] of Object.entries(result.functions ?? {})) validateConfig(value, `${name} functions.${fn}`);
  return { ...result, file };
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
