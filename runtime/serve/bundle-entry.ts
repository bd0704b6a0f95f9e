/**
 * The code at the start of every bundle `cloudfn build` writes: it takes the functions the
 * bundle imported, checks them with the loader's rules (load.ts, imported only for a module
 * that exports more than a handler, or no handler), and serves them with `serve`
 * (options from flags' absence: env vars, then the config baked in at build time, then
 * defaults; the health path among them).
 */
import { CloudfnError } from '../errors.js';
import type { FunctionSpec, Handler } from '../types.js';
import type { ConfigFile } from './config-file.js';
import { compileCacheWarning, enableCompileCache } from './compile-cache.js';
import { EVERY_PATH } from '../request/router.js';
import { serve, type RunningServer } from './serve.js';

/** A function as a bundle carries it: the module it imported and where it came from. */
export interface BundledFunction {
  name: string;
  /** The source path, for messages (`functions/hello.ts`). */
  where: string;
  module: Record<string, unknown>;
}

/** What a bundle's entry passes. */
export interface BundleInit {
  functions: BundledFunction[];
  /** The project's cloudfn.config, baked in. */
  config: ConfigFile;
  /** One function answering every path (`dist/<name>/index.mjs`), or all by route (`dist/server.mjs`). */
  single: boolean;
}

/**
 * Starts the server of a bundle. A bad function (no default export, a bad config) prints the
 * same one line as `cloudfn start` and exits 1.
 * @example await startBundle({ functions: [{ name: 'hello', where: 'functions/hello.ts', module }], config: {}, single: true })
 */
export async function startBundle(init: BundleInit): Promise<RunningServer | undefined> {
  // The bundle's main file is compiled before any of its code runs, so this caches what loads
  // after it: the chunks imported on demand (body parsers, metrics, Redis) and external
  // packages. NODE_COMPILE_CACHE in the environment covers the main file too (Node >= 22.1).
  const warning = compileCacheWarning(enableCompileCache(process.env));
  if (warning !== undefined) process.stderr.write(warning);
  let specs: FunctionSpec[];
  try {
    // A module that exports a handler and no config needs no check. Any other (a config, a
    // CommonJS or compiled module, no handler) is read by the loader's rules, imported for it.
    if (init.functions.every((fn) => isPlainHandler(fn.module)))
      specs = init.functions.map((fn) => ({
        name: fn.name,
        file: fn.where,
        handler: fn.module['default'] as Handler,
        config: {},
      }));
    else {
      const { functionFromModule } = await import('./load.js');
      specs = init.functions.map((fn) => functionFromModule(fn.module, fn.name, fn.where));
    }
  } catch (error) {
    process.stderr.write(`cloudfn: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return undefined;
  }
  const config: ConfigFile = init.single ? { ...init.config, routes: { [EVERY_PATH]: specs[0]!.name } } : init.config;
  let running: RunningServer;
  try {
    running = await serve(specs, {
      config,
      env: process.env,
    });
  } catch (error) {
    if (!(error instanceof CloudfnError) && (error as NodeJS.ErrnoException).code === undefined) throw error;
    process.stderr.write(`cloudfn: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return undefined;
  }
  return running;
}

/**
 * True for a module whose default export is a function and which exports no config, on it or
 * beside it: `functionFromModule` (load.ts) would take it as it is, with the config `{}`.
 */
function isPlainHandler(module: Record<string, unknown>): boolean {
  const handler = module['default'];
  return (
    typeof handler === 'function' &&
    module['config'] === undefined &&
    (handler as { config?: unknown }).config === undefined
  );
}
