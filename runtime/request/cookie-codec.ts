/**
 * The cookie package, imported after start (see ../lazy-import.ts): most functions never read
 * or set a cookie. The service reads and sets cookies synchronously, so `handle.ts` waits for
 * the codec before a handler runs if it has not arrived yet.
 */
import type * as Cookie from 'cookie';
import { commonJs, LazyImport } from '../lazy-import.js';

/** The functions of `cookie` the service uses. */
export type CookieCodec = Pick<typeof Cookie, 'parse' | 'serialize'>;

/** The codec of this process. */
export const cookieCodec = new LazyImport(() => import('cookie').then((m) => commonJs<CookieCodec>(m)));

/**
 * The codec once loaded, for the service's synchronous reads and writes: the pipeline waits for
 * it before a handler runs; a service made outside it provides it first (fake-service.ts).
 */
export function loadedCodec(): CookieCodec {
  const loaded = cookieCodec.value;
  if (loaded === undefined)
    throw new Error('cloudfn: the cookie codec is not loaded yet; await cookieCodec.load() first');
  return loaded;
}
