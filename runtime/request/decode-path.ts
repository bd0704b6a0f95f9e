/**
 * Reading the function's name from a request path: escapes decoded, and the paths a gateway
 * would route elsewhere refused with 400 (CLOUDFN_BAD_PATH). Split from handle.ts, the request
 * path's driver, which calls it once per request.
 */
import { createError } from '../errors.js';
import type { Exchange } from './exchange.js';
import { sendError } from './response.js';

/**
 * The path a function name is read from. Escapes are decoded, so `/%65cho` runs `echo` (RFC
 * 3986 §6.2.2.2: an escaped unreserved character is the character, and a gateway that
 * normalizes sees the same name; the request line keeps the path as sent). Refused with 400,
 * because a gateway would see another path than the function: an escaped '/' (`%2F`, one
 * segment to a gateway, two here) and '.' or '..' segments (a gateway resolves them). See
 * docs/decisions.md. Returns undefined once answered.
 */
export function decodePath(x: Exchange, raw: string): string | undefined {
  let path = raw;
  if (raw.includes('%')) {
    if (/%2f/i.test(raw)) {
      sendError(
        x,
        createError(
          'CLOUDFN_BAD_PATH',
          raw,
          "escapes a '/' as %2F, which a gateway reads as part of one segment; send the '/' itself",
        ),
      );
      return undefined;
    }
    try {
      path = decodeURIComponent(raw);
    } catch {
      sendError(x, createError('CLOUDFN_BAD_PATH', raw, "has a bad percent-escape; encode '%' as %25"));
      return undefined;
    }
  }
  if (path.includes('/.')) {
    const segments = path.split('/');
    if (segments.includes('.') || segments.includes('..')) {
      sendError(
        x,
        createError(
          'CLOUDFN_BAD_PATH',
          raw,
          "has a '.' or '..' segment, which a gateway resolves before routing; send the resolved path",
        ),
      );
      return undefined;
    }
  }
  return path;
}
