/**
 * Imports a function module (ESM, CommonJS, or TypeScript through a compile hook) and checks
 * its shape: a default export (or `module.exports`) that is a function, and an optional
 * `config` whose keys and values are validated with a message naming the file. A bundle
 * imports this file only for a module that is not a plain handler (bundle-entry.ts).
 */
import { pathToFileURL } from 'node:url';
import { createError } from '../errors.js';
import { LIMIT_KEYS } from '../options.js';
import { isStandardSchema } from '../contract/standard-schema.js';
import type { FunctionConfig, FunctionSpec, Handler, ScheduleSpec } from '../types.js';
import { createModuleError } from './module-errors.js';

/** Turns a source file into a file Node can import (cloudfn start passes esbuild's). */
export type CompileHook = (file: string, name: string) => Promise<string>;

/** The keys of a function's `config`: its timeout, its schedule, its place in the client and every limit. */
export const CONFIG_KEYS: readonly string[] = ['timeout', 'schedule', 'client', ...LIMIT_KEYS];

/**
 * Checks a function's `export const config`: known keys only, positive integers, and
 * Standard Schema validators for `params` and `result`.
 * @example validateConfig({ timeout: 5000 }, 'functions/hello.ts')
 */
export function validateConfig(config: unknown, where: string): FunctionConfig {
  if (config === undefined || config === null) return {};
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw createError(
      'CLOUDFN_BAD_CONFIG',
      where,
      `config must be an object such as { timeout: 5000 }, got ${JSON.stringify(config)}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'params' || key === 'result') {
      // A contract (runtime/contract): any Standard Schema v1 validator, checked once here.
      if (value === undefined) continue;
      if (!isStandardSchema(value))
        throw createError(
          'CLOUDFN_BAD_CONFIG',
          where,
          `config.${key} must be a Standard Schema v1 validator (zod 3.24+, valibot 1, arktype 2...) such as z.object({ name: z.string() }), got ${describeValue(value)}`,
        );
      out[key] = value;
      continue;
    }
    if (key === 'schedule') {
      // Its cron syntax is checked by the scheduler of cloudfn dev and start (src/schedule):
      // a bundle, fired by the platform's own timers, carries no cron parser.
      out[key] = validateSchedule(value, where);
      continue;
    }
    if (key === 'client') {
      // Read by `cloudfn client` alone (src/contract/client-functions.ts).
      if (typeof value !== 'boolean' && value !== 'inner-call')
        throw createError(
          'CLOUDFN_BAD_CONFIG',
          where,
          `config.client must be true, false or 'inner-call' (false and 'inner-call' leave the function out of cloudfn client), got ${JSON.stringify(value)}`,
        );
      out[key] = value;
      continue;
    }
    if (!CONFIG_KEYS.includes(key)) {
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        where,
        `config.${key} is not an option; the options are ${CONFIG_KEYS.join(', ')}, params, result`,
      );
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < (key === 'timeout' ? 1 : 0)) {
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        where,
        `config.${key} must be a whole number of ${key === 'timeout' ? 'milliseconds' : key.endsWith('Size') ? 'bytes' : 'items'}, got ${JSON.stringify(value)}`,
      );
    }
    out[key] = value;
  }
  return out as unknown as FunctionConfig;
}

/** `config.schedule`: a non-empty string, or `{ cron, params }` whose params are JSON. */
function validateSchedule(value: unknown, where: string): string | ScheduleSpec {
  const bad = (detail: string): Error =>
    createError(
      'CLOUDFN_BAD_CONFIG',
      where,
      `config.schedule ${detail}; write a cron expression such as "0 */5 * * * *", or { cron: "0 */5 * * * *", params: { ... } }`,
    );
  if (typeof value === 'string') {
    if (value.trim() === '') throw bad('is an empty string');
    return value;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(`must be a string or an object, got ${JSON.stringify(value)}`);
  const spec = value as Record<string, unknown>;
  for (const key of Object.keys(spec))
    if (key !== 'cron' && key !== 'params') throw bad(`has no key ${key} (its keys are cron and params)`);
  if (typeof spec['cron'] !== 'string' || spec['cron'].trim() === '')
    throw bad(`.cron must be a cron expression, got ${JSON.stringify(spec['cron'])}`);
  if (spec['params'] !== undefined) {
    let text: string | undefined;
    try {
      text = JSON.stringify(spec['params']);
    } catch (error) {
      throw bad(`.params cannot be sent as JSON (${(error as Error).message})`);
    }
    if (text === undefined) throw bad(`.params cannot be sent as JSON (it is ${typeof spec['params']})`);
  }
  return spec as unknown as ScheduleSpec;
}

/** What a value is, in words: `an object with keys hello`, `the string "hi"`, `null`. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length === 0
      ? 'an empty object'
      : `an object with keys ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}`;
  }
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '...' : value)}`;
  return `the ${typeof value} ${String(value)}`;
}

/** The handler and the config a module exports, not yet checked. */
export interface FoundExports {
  handler: unknown;
  config: unknown;
}

/**
 * The handler and config of an imported module, as it exports them.
 * @example findExports(await import('./hello.mjs')) // { handler: [Function hello], config: undefined }
 */
export function findExports(mod: Record<string, unknown>): FoundExports {
  let handler = mod['default'] as unknown;
  // ESM compiled to CommonJS (esbuild, tsc) marks its exports object with __esModule: its own
  // `default` is the default export, missing when the source had none.
  if (
    typeof handler === 'object' &&
    handler !== null &&
    ((handler as { __esModule?: unknown }).__esModule === true ||
      typeof (handler as { default?: unknown }).default === 'function')
  ) {
    handler = (handler as { default: unknown }).default;
  }
  const config =
    mod['config'] ??
    (mod['default'] as { config?: unknown } | undefined)?.config ??
    (handler as { config?: unknown } | null | undefined)?.config;
  return { handler, config };
}

/**
 * Finds the handler and config in an imported module (`findExports`) and checks them: a
 * default export that is a function, and a valid config.
 */
export function functionFromModule(mod: Record<string, unknown>, name: string, where: string): FunctionSpec {
  const { handler, config } = findExports(mod);
  // A WeChat cloud function (`exports.main = async (event, context) => ...`): its own message,
  // since the fix is one line. `main` is on the namespace (ESM, or CommonJS through node's
  // export lexer) or on module.exports, which is the default of an imported CommonJS module.
  if (
    typeof handler !== 'function' &&
    (typeof mod['main'] === 'function' ||
      typeof (handler as { main?: unknown } | null | undefined)?.main === 'function')
  )
    throw createModuleError('CLOUDFN_WECHAT_MAIN_EXPORT', where);
  if (handler === undefined) throw createModuleError('CLOUDFN_NO_DEFAULT_EXPORT', where);
  if (typeof handler !== 'function')
    throw createModuleError('CLOUDFN_DEFAULT_EXPORT_NOT_FUNCTION', where, describeValue(handler));
  return { name, file: where, handler: handler as Handler, config: validateConfig(config, where) };
}

const NEEDS_COMPILE = /\.[cm]?ts$/;

/**
 * Imports one function file. TypeScript goes through `compile`; JavaScript is imported as is.
 * @example await loadFunction('/srv/app/functions/hello.mjs', 'hello', 'functions/hello.mjs')
 */
export async function loadFunction(
  file: string,
  name: string,
  where: string,
  compile?: CompileHook,
): Promise<FunctionSpec> {
  let target = file;
  if (NEEDS_COMPILE.test(file)) {
    if (compile === undefined) {
      throw createError(
        'CLOUDFN_BAD_CONFIG',
        where,
        'TypeScript needs compiling: run it with cloudfn start or cloudfn dev, or bundle it with cloudfn build',
      );
    }
    target = await compile(file, name);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(target).href)) as Record<string, unknown>;
  } catch (error) {
    throw createError('CLOUDFN_BAD_CONFIG', where, `failed to load: ${(error as Error).message.split('\n')[0]}`);
  }
  const spec = functionFromModule(mod, name, where);
  spec.file = where;
  return spec;
}
