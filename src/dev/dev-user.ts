/**
 * The dev server stands where the platform's gateway would: a request that carries none of
 * the gateway's identity headers gets those of the dev user (config `devUser`, env
 * `CLOUDFN_DEV_OPENID` / `CLOUDFN_DEV_APPID` / `CLOUDFN_DEV_UNIONID`), so a function that reads
 * `X-TT-OPENID` (or `service.caller`) answers under `curl` as it would on the platform, and
 * the dev user's live room (`roomid`, `anchorOpenid`, ...) when it has one, except where the
 * request names its own. A request that carries any identity header (the console page's
 * chosen or anonymous user, a curl -H) is left as sent.
 */
import type { IncomingMessage } from 'node:http';
import type { DevUser } from '../../runtime/options.js';
import { callerHeaders, hasGatewayHeaders } from '../../runtime/request/caller.js';
import type { BeforeHook } from '../../runtime/serve/http-server.js';

/**
 * A hook of the dev server's http server that adds the dev user's headers, and never answers.
 * @example createHttpServer(app, { before: [devUserHook(resolveDevUser({ env: process.env, config }))] })
 */
export function devUserHook(user: DevUser): BeforeHook {
  const headers = callerHeaders(user);
  const forwarded = headers['x-forwarded-for']!;
  delete headers['x-forwarded-for'];
  return (req: IncomingMessage) => {
    // The gateway sets X-Forwarded-For on every call; locally the client is this machine.
    req.headers['x-forwarded-for'] ??= forwarded;
    if (hasGatewayHeaders(req.headers)) return false;
    // Each header the request lacks: a room sent by the console or curl is kept.
    for (const name in headers) req.headers[name] ??= headers[name];
    return false;
  };
}
