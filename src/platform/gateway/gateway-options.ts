/**
 * The local gateway's settings, read in this one place: the ids it sends on every call
 * (`X-TT-APPID` is the dev user's appid; `X-TT-ENVID` and `X-TT-SERVICEID` from
 * `CLOUDFN_DEV_ENVID` and `CLOUDFN_DEV_SERVICEID`) and the idle timeout
 * (`CLOUDFN_WS_IDLE_TIMEOUT`, milliseconds, 0 for none).
 */
import { platformError } from '../errors.js';
import type { GatewayIdentity } from './gateway.js';
import { IDLE_TIMEOUT_VAR } from './names.js';

/** The default idle timeout: 10 minutes without a message either way. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;

/** What the gateway reads. */
export interface GatewaySettings {
  identity: GatewayIdentity;
  /** @default 600000 */
  idleTimeoutMs: number;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Reads the settings from `env`; a bad idle timeout throws PLATFORM_OPTIONS naming it.
 * @example readGatewayOptions(process.env, { appid: 'tt1' }).identity // { appid: 'tt1', envId: 'env-dev', serviceId: 'dev-service' }
 */
export function readGatewayOptions(env: Record<string, string | undefined>, user: { appid: string }): GatewaySettings {
  const rawIdle = nonEmpty(env[IDLE_TIMEOUT_VAR]);
  let idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  if (rawIdle !== undefined) {
    if (!/^\d+$/.test(rawIdle))
      throw platformError(
        'PLATFORM_OPTIONS',
        IDLE_TIMEOUT_VAR,
        `must be a whole number of milliseconds (0 for no timeout), got ${JSON.stringify(rawIdle)}`,
      );
    idleTimeoutMs = Number(rawIdle);
  }
  return {
    identity: {
      appid: user.appid,
      envId: nonEmpty(env['CLOUDFN_DEV_ENVID']) ?? 'env-dev',
      serviceId: nonEmpty(env['CLOUDFN_DEV_SERVICEID']) ?? 'dev-service',
    },
    idleTimeoutMs,
  };
}
