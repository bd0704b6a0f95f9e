/**
 * Where a function module keeps its handler and its config: `export default fn` (ESM,
 * TypeScript), `module.exports = fn` (CommonJS), or a CommonJS `exports.default = fn` from a
 * compiler. The checks of what is found (load.ts) are imported by a bundle only when a module
 * is not a plain handler without a config (issue 44: the start code pays only for what it uses).
 */
import type { FunctionSpec, Handler } from '../types.js';

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
 * The function of a module that exports a handler and no config, which needs no check; else
 * undefined, and the module goes through `functionFromModule` (load.ts).
 * @example plainFunction(module, 'hello', 'functions/hello.ts') // { name: 'hello', file, handler, config: {} }
 */
export function plainFunction(mod: Record<string, unknown>, name: string, where: string): FunctionSpec | undefined {
  const { handler, config } = findExports(mod);
  if (typeof handler !== 'function' || config !== undefined) return undefined;
  return { name, file: where, handler: handler as Handler, config: {} };
}
