/**
 * Set-Cookie headers read back into objects, so a test asserts `cookies.session.httpOnly`
 * rather than matching strings.
 */
import { parseSetCookie, type SetCookie } from 'cookie';

/** One cookie the response set: its name, value and attributes (`maxAge`, `path`, `httpOnly`...). */
export type ResponseCookie = SetCookie;

/**
 * Parses Set-Cookie header values into a map by cookie name; a later header for the same
 * name replaces an earlier one, as a browser would store it. Null prototype.
 * @example parseSetCookies(['sid=1; Path=/; HttpOnly']).sid // { name: 'sid', value: '1', path: '/', httpOnly: true }
 */
export function parseSetCookies(headers: readonly string[]): Record<string, ResponseCookie> {
  const cookies = Object.create(null) as Record<string, ResponseCookie>;
  for (const header of headers) {
    const cookie = parseSetCookie(header);
    if (cookie.name !== '') cookies[cookie.name] = cookie;
  }
  return cookies;
}
