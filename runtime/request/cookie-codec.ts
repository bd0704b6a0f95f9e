/**
 * The cookie package, loaded when the runtime starts rather than with it: most functions never
 * read or set a cookie, and in a bundle (`cloudfn build`) the package sits in a chunk beside the
 * entry, so start-up does not compile it. `handle.ts` waits for it before the first handler runs
 * if it has not arrived yet; from then on the service reads it synchronously.
 */
import type * as Cookie from 'cookie';

/** The functions of `cookie` the service uses. */
export type CookieCodec = Pick<typeof Cookie, 'parse' | 'serialize'>;

let codec: CookieCodec | undefined;
let loading: Promise<CookieCodec> | undefined;

/** The codec, or undefined until `loadCookieCodec` has resolved (or one was provided). */
export function cookieCodec(): CookieCodec | undefined {
  return codec;
}

/**
 * Starts loading the codec (once per process; the module system caches it anyway).
 * @example await loadCookieCodec()
 */
export function loadCookieCodec(): Promise<CookieCodec> {
  loading ??= import('cookie').then((module) => {
    // A CommonJS package: node's import gives its exports as names and as `default`; a chunk
    // of an esbuild bundle gives `default` only.
    const exports = (module as { default?: CookieCodec }).default ?? module;
    codec = exports;
    return exports;
  });
  return loading;
}

/**
 * Gives the codec to code that imported `cookie` itself (the test helpers build services
 * without a server, synchronously).
 * @example provideCookieCodec(await import('cookie'))
 */
export function provideCookieCodec(module: CookieCodec): void {
  codec ??= module;
}
