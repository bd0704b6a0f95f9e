/**
 * The user `cloudfn dev` acts as (`DevUser`): the caller headers the platform's gateway would
 * send, each field from its environment variable, then `cloudfn.config devUser`, then the
 * default; runtime/options.ts exports it with the other options.
 */
import type { DevUser } from '../shapes.js';
import { createError } from '../errors.js';
import type { OptionSources } from './pick.js';

export type { DevUser };

/** The default dev user, and the environment variable of the fields that have one. */
const devUserSpecs: {
  readonly [K in keyof DevUser]-?: { readonly env?: string; readonly default: string | undefined };
} = {
  openid: { env: 'CLOUDFN_DEV_OPENID', default: 'dev-openid' },
  // The emulator's dev app (src/platform/http/client-env.ts DEV_CLIENT_KEY, which runtime/ cannot
  // import; a test keeps the two equal): the caller and the OpenAPI calls name one app.
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
    const fromEnv = spec.env === undefined ? undefined : sources.env?.[spec.env];
    const [raw, where] =
      fromEnv !== undefined && fromEnv !== '' ? [fromEnv, spec.env!] : [config[key], `cloudfn.config devUser.${key}`];
    if (raw === undefined) {
      if (spec.default !== undefined) user[key] = spec.default;
      continue;
    }
    // The nickname is percent-encoded when sent, so any text is fine; the rest go as they are.
    if (typeof raw !== 'string' || raw.trim() === '' || (key !== 'nickname' && /[^\x20-\x7e]/.test(raw)))
      throw createError(
        'CLOUDFN_OPTIONS',
        `devUser.${key}`,
        `must be a non-empty string of printable ASCII (it is sent in a header), got ${JSON.stringify(raw)} (from ${where})`,
      );
    user[key] = raw.trim();
  }
  return user as unknown as DevUser;
}
