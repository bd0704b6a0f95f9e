/**
 * The request targets that need more than a slice: a path with escapes or dot segments, decoded
 * or, when a gateway would route it elsewhere, refused with 400 (CLOUDFN_BAD_PATH); and a target
 * that is not a path (the absolute form, `*`, CONNECT's authority). handle.ts, the request
 * path's driver, imports this file on the first such request: a plain `/hello` never needs it,
 * so a bundle's start-up does not read it (issue 44).
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

/**
 * The targets that are not a path (RFC 9112 §3.2): the absolute form (`http://host/echo`) is
 * routed by its path; `*` (OPTIONS) and CONNECT's `host:port` name no function, so 405; the
 * rest is a bad path. Returns the origin-form target, or undefined once answered.
 */
export function nonOriginTarget(x: Exchange, url: string): string | undefined {
  x.rawPath = url;
  if (x.method === 'CONNECT' || url === '*') {
    x.closeConnection = x.method === 'CONNECT';
    sendError(x, createError('CLOUDFN_METHOD_NOT_ALLOWED', x.method));
    return undefined;
  }
  const scheme = /^https?:\/\/[^/?#]*/i.exec(url);
  if (scheme === null) {
    sendError(
      x,
      createError('CLOUDFN_BAD_PATH', JSON.stringify(url), "is not a path; send a target that starts with '/'"),
    );
    return undefined;
  }
  const rest = url.slice(scheme[0].length);
  return rest.charCodeAt(0) === 47 ? rest : `/${rest}`;
}
