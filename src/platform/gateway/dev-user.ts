/**
 * The dev server stands where the platform's gateway would: a request that carries none of
 * the gateway's identity headers gets those of the dev user (config `devUser`, env
 * `CLOUDFN_DEV_OPENID` / `CLOUDFN_DEV_APPID` / `CLOUDFN_DEV_UNIONID`), so a function that reads
 * `X-TT-OPENID` (or `service.caller`) answers under `curl` as it would on the platform, and
 * the dev user's live room (`roomid`, `anchorOpenid`, ...) when it has one, except where the
 * request names its own. A request that carries any identity header (the console page's
 * chosen or anonymous user, a curl -H) is left as sent. The dev user is resolved here too,
 * through the option kit: each field from its environment variable, then `cloudfn.config
 * devUser`, then the default. Its type stays in runtime/shapes.ts, which the config file's
 * type and the caller headers read (docs/decisions.md).
 */
import type { IncomingMessage } from 'node:http';
import { createError } from '../../../runtime/errors.js';
import { type OptionArea, type OptionSpec, readOption } from '../../../runtime/option-kit.js';
import type { OptionSources } from '../../../runtime/options.js';
import type { DevUser } from '../../../runtime/shapes.js';
import { callerHeaders, hasGatewayHeaders } from '../../../runtime/request/caller.js';
import { isInnerCallHost } from '../../../runtime/intranet/hosts.js';

/**
 * A field of the dev user: a non-empty string without control characters (the nickname is
 * percent-encoded when sent, so any text is fine; the rest go as they are), trimmed.
 */
function field(key: string): OptionSpec<string | undefined>['parse'] {
  return (raw, where) => {
    if (typeof raw !== 'string' || raw.trim() === '' || (key !== 'nickname' && /[^\x20-\x7e]/.test(raw)))
      throw new TypeError(
        `must be a non-empty string of printable ASCII (it is sent in a header), got ${JSON.stringify(raw)} (from ${where})`,
      );
    return raw.trim();
  };
}

/** The default dev user, and the environment variable of the fields that have one. */
const devUserSpecs: {
  readonly [K in keyof DevUser]-?: { readonly env?: string; readonly default: string | undefined };
} = {
  openid: { env: 'CLOUDFN_DEV_OPENID', default: 'dev-openid' },
  // The emulator's dev app (src/platform/media-api/http/client-env.ts DEV_CLIENT_KEY, not imported so the
  // config schema does not load the emulator; a test keeps the two equal): the caller and the
  // OpenAPI calls name one app.
  appid: { env: 'CLOUDFN_DEV_APPID', default: 'tt-dev-app' },
  unionid: { env: 'CLOUDFN_DEV_UNIONID', default: 'dev-unionid' },
  env: { default: 'development' },
  source: { default: 'miniapp' },
  ip: { default: '127.0.0.1' },
  roomid: { env: 'CLOUDFN_DEV_ROOMID', default: undefined },
  anchorOpenid: { env: 'CLOUDFN_DEV_ANCHOR_OPENID', default: undefined },
  avatarUrl: { default: undefined },
  nickname: { default: undefined },
};

/** The fields of `devUser`, for the config schema. */
export const DEV_USER_KEYS: readonly string[] = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ Object.keys(devUserSpecs),
);

/** An empty variable is unset; an empty config field is refused. */
const devUserArea: OptionArea = {
  flag: (key) => key,
  config: (key) => `cloudfn.config devUser.${key}`,
  fail: (key, _where, detail) => createError('CLOUDFN_OPTIONS', `devUser.${key}`, detail),
  unset: (raw, layer) => raw === undefined || (layer === 'env' && raw === ''),
};

/**
 * The user `cloudfn dev` acts as: each field from its environment variable, then the config
 * file's `devUser`, then the default. A field that is not a non-empty string without control
 * characters throws `CLOUDFN_OPTIONS` naming it.
 * @example resolveDevUser({ env: { CLOUDFN_DEV_OPENID: 'ann' }, config }) // { openid: 'ann', ... }
 */
export function resolveDevUser(sources: OptionSources = {}): DevUser {
  const fromConfig = sources.config?.['devUser'];
  if (fromConfig !== undefined && (typeof fromConfig !== 'object' || fromConfig === null || Array.isArray(fromConfig)))
    throw createError(
      'CLOUDFN_OPTIONS',
      'devUser',
      `must be an object such as { "openid": "ann" }, got ${JSON.stringify(fromConfig)} (from cloudfn.config devUser)`,
    );
  const config = (fromConfig ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(config)) {
    if (!(key in devUserSpecs))
      throw createError(
        'CLOUDFN_OPTIONS',
        'devUser',
        `${key} is not a field; the fields are ${Object.keys(devUserSpecs).join(', ')} (from cloudfn.config devUser)`,
      );
  }
  const user = {} as Record<string, string>;
  for (const [key, spec] of Object.entries(devUserSpecs)) {
    const layers = { env: sources.env, config };
    const [value] = readOption(key, { ...spec, parse: field(key) }, layers, devUserArea);
    if (value !== undefined) user[key] = value;
  }
  return user as unknown as DevUser;
}

/**
 * The gateway's `onRequest` (runtime/serve/extension.ts): adds the dev user's headers to a
 * request to a function, and never answers.
 * @example const extension = { name: 'gateway', onRequest: devUserHeaders(resolveDevUser({ env: process.env, config })) }
 */
export function devUserHeaders(user: DevUser): (req: IncomingMessage) => undefined {
  const headers = callerHeaders(user);
  const forwarded = headers['x-forwarded-for']!;
  delete headers['x-forwarded-for'];
  return (req: IncomingMessage) => {
    // A call from another service of the app (an inner call) does not pass the gateway: no caller.
    if (isInnerCallHost(req.headers.host)) return undefined;
    // The gateway sets X-Forwarded-For on every call; locally the client is this machine.
    req.headers['x-forwarded-for'] ??= forwarded;
    if (hasGatewayHeaders(req.headers)) {
      // The platform's gateway always sends the app; a request that names its own caller (an
      // anchor's, say) still runs as the dev user's app.
      req.headers['x-tt-appid'] ??= headers['x-tt-appid'];
      return undefined;
    }
    // Each header the request lacks: a room sent by the console or curl is kept.
    for (const name in headers) req.headers[name] ??= headers[name];
    return undefined;
  };
}
