/**
 * Turning on Node's compile cache (`module.enableCompileCache`, Node >= 22.1) before the code of
 * `cloudfn start` or of a bundle's chunks loads: V8's compiled code is kept on disk, so the next
 * start skips compiling what it already compiled. The directory comes from the options module
 * (`CLOUDFN_COMPILE_CACHE`: a directory, `off`, or unset for Node's default). On an older Node,
 * or when the directory cannot be written (a read-only file system), it does nothing: the cache
 * only saves time, it never stops a start.
 */
import { resolveCompileCache } from '../options.js';

/** What `enableCompileCache` did, for the tests and the bench. */
export interface CompileCacheResult {
  /** `enabled`, `already` (on before, e.g. by NODE_COMPILE_CACHE), `off`, `unsupported` or `failed`. */
  status: 'enabled' | 'already' | 'off' | 'unsupported' | 'failed';
  /** The cache directory when on. */
  directory?: string;
  /** Why it is not on, for `failed`. */
  message?: string;
}

/** The part of node:module this needs; @types/node 20 does not declare it yet. */
interface CompileCacheApi {
  enableCompileCache?: (directory?: string) => { status: number; message?: string; directory?: string };
  constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number; FAILED: number; DISABLED: number } };
}

/**
 * Turns on the compile cache if this Node has it and the option does not say `off`.
 * @example enableCompileCache(process.env) // { status: 'enabled', directory: '/tmp/node-compile-cache' }
 */
export function enableCompileCache(env: NodeJS.ProcessEnv): CompileCacheResult {
  let option: string | false | undefined;
  try {
    option = resolveCompileCache({ env });
  } catch (error) {
    return { status: 'failed', message: (error as Error).message };
  }
  if (option === false) return { status: 'off' };
  // Node 20 has no compile cache: said without loading node:module, which a bundle then does
  // not load at all before its first `require` (build/banner.ts).
  if (!nodeHasCompileCache(process.versions.node)) return { status: 'unsupported' };
  // process.getBuiltinModule rather than an ESM import of node:module: this runs first in every
  // bundle, and an ESM import of a builtin builds a namespace of all its exports.
  const api = process.getBuiltinModule('node:module') as unknown as CompileCacheApi;
  if (typeof api.enableCompileCache !== 'function') return { status: 'unsupported' };
  try {
    const result = api.enableCompileCache(option);
    const codes = api.constants?.compileCacheStatus;
    if (result.status === codes?.ENABLED) return { status: 'enabled', directory: result.directory };
    if (result.status === codes?.ALREADY_ENABLED) return { status: 'already', directory: result.directory };
    return { status: 'failed', message: result.message ?? 'disabled' };
  } catch (error) {
    return { status: 'failed', message: (error as Error).message };
  }
}

/**
 * Whether a Node version has `module.enableCompileCache` (22.1 and later).
 * @example nodeHasCompileCache('20.20.2') // false
 */
export function nodeHasCompileCache(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

/** One line for stderr when the cache was asked for and could not be turned on; else undefined. */
export function compileCacheWarning(result: CompileCacheResult): string | undefined {
  return result.status === 'failed'
    ? `cloudfn: compile cache not used (starts compile everything again): ${result.message}\n`
    : undefined;
}
