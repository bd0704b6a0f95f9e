/**
 * The caller as the platform's gateway says it (docs/platform-projects.md): for a call from a
 * mini-program the gateway adds `X-TT-OPENID`, `X-TT-APPID`, `X-TT-UNIONID`,
 * `X-TT-ANONYMOUS-OPENID`, `X-TT-ENV`, `X-TT-SOURCE` and `X-Forwarded-For`. This file owns
 * their names, reading them into a `Caller` and writing a user as them; removing them (with every
 * other platform-set header) when the gateway is not trusted is gateway-headers.ts's.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller, CallerInit } from '../types.js';

/**
 * The identity headers the gateway sets for a call from a mini-program, lower case. They are
 * among the platform-set headers of gateway-headers.ts, which removes all of them when the
 * gateway is not trusted; these are the ones that make a caller.
 */
export const IDENTITY_HEADERS = [
  'x-tt-openid',
  'x-tt-appid',
  'x-tt-unionid',
  'x-tt-anonymous-openid',
  'x-tt-env',
  'x-tt-source',
] as const;

function one(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

/**
 * True when the request carries any of the gateway's identity headers.
 * @example hasGatewayHeaders({ 'x-tt-openid': 'ann' }) // true
 */
export function hasGatewayHeaders(headers: Readonly<IncomingHttpHeaders>): boolean {
  for (const name of IDENTITY_HEADERS) if (headers[name] !== undefined) return true;
  return false;
}

/**
 * The caller of a request, or undefined when it carries neither `X-TT-OPENID` nor
 * `X-TT-ANONYMOUS-OPENID` (not a call from a mini-program through the gateway).
 * @example readCaller({ 'x-tt-openid': 'ann', 'x-tt-appid': 'tt1' }) // { openid: 'ann', appid: 'tt1', anonymous: false }
 */
export function readCaller(headers: Readonly<IncomingHttpHeaders>): Caller | undefined {
  const openid = one(headers['x-tt-openid']);
  const anonymousOpenid = one(headers['x-tt-anonymous-openid']);
  if (openid === undefined && anonymousOpenid === undefined) return undefined;
  const caller: { -readonly [K in keyof Caller]: Caller[K] } = { anonymous: openid === undefined };
  if (openid !== undefined) caller.openid = openid;
  if (anonymousOpenid !== undefined) caller.anonymousOpenid = anonymousOpenid;
  const appid = one(headers['x-tt-appid']);
  if (appid !== undefined) caller.appid = appid;
  const unionid = one(headers['x-tt-unionid']);
  if (unionid !== undefined) caller.unionid = unionid;
  const env = one(headers['x-tt-env']);
  if (env !== undefined) caller.env = env;
  const source = one(headers['x-tt-source']);
  if (source !== undefined) caller.source = source;
  // The gateway appends the client's address; the first entry is the client.
  const forwarded = one(headers['x-forwarded-for'])?.split(',')[0]?.trim();
  if (forwarded !== undefined && forwarded !== '') caller.ip = forwarded;
  return Object.freeze(caller);
}

/**
 * A user as the headers the gateway would send: `{ openid: 'ann' }` → `X-TT-OPENID: ann`;
 * `{ anonymous: true }` sends `X-TT-ANONYMOUS-OPENID` (given, or `anon-<openid or 'user'>`)
 * and no `X-TT-OPENID`; the live-room fields send `X-Room-ID`, `X-Anchor-OpenID`,
 * `X-Avatar-Url` and `X-Nick-Name` (percent-encoded). Values with characters a header cannot hold throw a TypeError naming
 * the field.
 * @example callerHeaders({ openid: 'ann', appid: 'tt1' }) // { 'x-tt-openid': 'ann', 'x-tt-appid': 'tt1' }
 */
export function callerHeaders(user: CallerInit): Record<string, string> {
  const headers: Record<string, string> = {};
  const put = (name: string, field: string, value: string | undefined): void => {
    if (value === undefined) return;
    if (typeof value !== 'string' || value === '' || /[^\x20-\x7e]/.test(value))
      throw new TypeError(`user.${field} must be a non-empty string of printable ASCII, got ${JSON.stringify(value)}`);
    headers[name] = value;
  };
  if (user.anonymous === true) {
    put('x-tt-anonymous-openid', 'anonymousOpenid', user.anonymousOpenid ?? `anon-${user.openid ?? 'user'}`);
  } else {
    put('x-tt-openid', 'openid', user.openid);
    put('x-tt-anonymous-openid', 'anonymousOpenid', user.anonymousOpenid);
  }
  put('x-tt-appid', 'appid', user.appid);
  put('x-tt-unionid', 'unionid', user.anonymous === true ? undefined : user.unionid);
  put('x-tt-env', 'env', user.env);
  put('x-tt-source', 'source', user.source);
  put('x-forwarded-for', 'ip', user.ip);
  put('x-room-id', 'roomid', user.roomid);
  put('x-anchor-openid', 'anchorOpenid', user.anchorOpenid);
  put('x-avatar-url', 'avatarUrl', user.avatarUrl);
  if (user.nickname !== undefined) {
    if (typeof user.nickname !== 'string' || user.nickname === '')
      throw new TypeError(`user.nickname must be a non-empty string, got ${JSON.stringify(user.nickname)}`);
    headers['x-nick-name'] = encodeURIComponent(user.nickname);
  }
  return headers;
}
