/**
 * Loading mingo, the stand-in's query engine, on the first database call (it takes about 190 ms
 * to load, measured on Node 20, 2 cores, so a function that only reads getContext() does not pay
 * for it). mingo is an optional peer dependency: when it cannot be loaded, the call fails with
 * PLATFORM_SDK_NO_MINGO, one line naming `npm install mingo`. When `cloudfn build` bundles the
 * stand-in into a container (`"sdk": "stand-in"`), esbuild hands mingo's CommonJS build to the
 * dynamic import as `default` only: the named exports are read from there then; without mingo
 * installed, the build leaves it external (src/build/optional-peers.ts).
 */
import { platformError } from '../errors.js';

type Mingo = typeof import('mingo');

let engine: Promise<Mingo> | undefined;

/**
 * mingo's exports, once per process; rejects with PLATFORM_SDK_NO_MINGO when it cannot be
 * loaded (and tries again on the next call).
 * @example const { Query } = await loadMingo()
 */
export function loadMingo(): Promise<Mingo> {
  engine ??= import('mingo').then(
    (module) => (typeof module.aggregate === 'function' ? module : (module as unknown as { default: Mingo }).default),
    (error: unknown) => {
      engine = undefined;
      const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'not found';
      throw platformError('PLATFORM_SDK_NO_MINGO', detail);
    },
  );
  return engine;
}
