/**
 * Which console answers another page may read, and from where: the console of one service of a
 * `cloudfn dev` session asks every other service (another port, so another origin) whether it
 * answers, and which components it uses. Only the answers named here, only for GET and HEAD, and only to a page served from a
 * loopback address (`localhost`, `127.0.0.0/8`, `[::1]`): a page from anywhere else gets no CORS
 * header, so the browser keeps the answer from it. No cookie or credential is allowed.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { isLoopbackName } from '../host-guard.js';

/**
 * The console API answers (`${CLOUDFN_PREFIX}/api/<name>`) a page of another local origin may read:
 * whether a service answers, and its components (each service's page lists the session's).
 */
export const CROSS_ORIGIN_ANSWERS: ReadonlySet<string> = new Set(['services', 'components']);

/**
 * The `Origin` a page of a loopback address sends, as given; undefined for any other (a site on
 * the internet, a `null` origin, a host that only starts with `localhost`).
 * @example loopbackOrigin('http://127.0.0.1:8001') // 'http://127.0.0.1:8001'
 * @example loopbackOrigin('http://localhost.example.com') // undefined
 */
export function loopbackOrigin(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // An origin is scheme, host and port only: anything else is not a browser's Origin header.
  if (url.origin !== origin) return undefined;
  return isLoopbackName(url.hostname) ? origin : undefined;
}

/**
 * The headers that let a loopback page read the answer `name`; none for any other answer or page.
 * `vary: origin` keeps a cache from giving one page's answer to another.
 * @example crossOriginHeaders('services', req.headers.origin) // { 'access-control-allow-origin': 'http://127.0.0.1:8001', vary: 'origin' }
 */
export function crossOriginHeaders(name: string, origin: string | undefined): OutgoingHttpHeaders {
  if (!CROSS_ORIGIN_ANSWERS.has(name)) return {};
  const allowed = loopbackOrigin(origin);
  return allowed === undefined ? { vary: 'origin' } : { 'access-control-allow-origin': allowed, vary: 'origin' };
}
