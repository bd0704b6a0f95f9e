/**
 * Reads `cloudfn.config.(js|mjs|json)` at a project's root: global options, per-function
 * options and custom routes. Unknown keys stop start-up, since a typo would silently be ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  'routes', 'functions', 'limits', 'port', 'host', 'timeout', 'maxHeaderSize', 'headersTimeout', 'requestTimeout',
  'keepAliveTimeout', 'shutdownTimeout', 'logidHeader', 'triggerHeader', 'protoAction',
]);

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
    config = name.endsWith('.json')
      ? JSON.parse(readFileSync(file, 'utf8'))
      : ((await import(pathToFileURL(file).href)) as { default?: unknown }).default;
  } catch (error) {
    throw createError('CLOUDFN_BAD_CONFIG', name, `cannot be read: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw createError('CLOUDFN_BAD_CONFIG', name, 'must hold an object (export default { ... } or a JSON object)');
  }
  for (const key of Object.keys(config)) {
    if (!OPTION_KEYS.has(key)) throw createError('CLOUDFN_BAD_CONFIG', name, `${key} is not an option; the options are ${[...OPTION_KEYS].join(', ')}`);
  }
  const result = config as ConfigFile;
  if (result.routes !== undefined && (typeof result.routes !== 'object' || result.routes === null)) {
    throw createError('CLOUDFN_BAD_CONFIG', name, 'routes must be an object of pattern → function name, e.g. { "/videos/:vid": "videos/get" }');
  }
  for (const [fn, value] of Object.entries(result.functions ?? {})) validateConfig(value, `${name} functions.${fn}`);
  return { ...result, file };
}
