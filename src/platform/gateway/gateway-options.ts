/**
 * The local gateway's settings, read in this one place: the ids it sends on every call
 * (`X-TT-APPID` is the dev user's appid; `X-TT-ENVID` and `X-TT-SERVICEID` from
 * `CLOUDFN_DEV_ENVID` and `CLOUDFN_DEV_SERVICEID`) and the idle timeout
 * (`CLOUDFN_WS_IDLE_TIMEOUT`, milliseconds, 0 for none).
 */
import { createError } from '../../../runtime/errors.js';
import { envArea, type OptionSpec, readOptions, trimmed } from '../../../runtime/option-kit.js';
import { platformError } from '../errors.js';
import type { GatewayIdentity } from './gateway.js';
import { IDLE_TIMEOUT_VAR, MAX_QUEUED_VAR, REQUIRE_CONN_ID_VAR } from './names.js';

/** The default idle timeout: 10 minutes without a message either way. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;

/** The default bound of what one connection may have waiting to be sent: 8 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** What the gateway reads. */
export interface GatewaySettings {
  identity: GatewayIdentity;
  /** @default 600000 */
  idleTimeoutMs: number;
  /** Bytes one connection may have waiting before it is closed with 4009. @default 8388608 (8 MiB) */
  maxQueuedBytes: number;
  /** Refuse an upgrade without a fresh id from `/ws/get_conn_id` (CLOUDFN_WS_REQUIRE_CONN_ID). @default false */
  requireConnId: boolean;
}

/** Read from the environment only; a blank variable is unset. */
const gatewayArea = envArea((_name, where, detail) => platformError('PLATFORM_OPTIONS', where, detail));

const specs = {
  idleTimeoutMs: {
    env: IDLE_TIMEOUT_VAR,
    default: DEFAULT_IDLE_TIMEOUT_MS,
    parse: (raw) => {
      const text = trimmed(raw, IDLE_TIMEOUT_VAR);
      if (!/^\d+$/.test(text))
        throw new TypeError(`must be a whole number of milliseconds (0 for no timeout), got ${JSON.stringify(text)}`);
      return Number(text);
    },
  } as OptionSpec<number>,
  maxQueuedBytes: {
    env: MAX_QUEUED_VAR,
    default: DEFAULT_MAX_QUEUED_BYTES,
    parse: (raw) => {
      const text = trimmed(raw, MAX_QUEUED_VAR);
      if (!/^\d+$/.test(text) || Number(text) < 65_536)
        throw new TypeError(`must be a whole number of bytes, at least 65536, got ${JSON.stringify(text)}`);
      return Number(text);
    },
  } as OptionSpec<number>,
  requireConnId: {
    env: REQUIRE_CONN_ID_VAR,
    default: false,
    parse: (raw) => {
      const text = trimmed(raw, REQUIRE_CONN_ID_VAR).toLowerCase();
      if (text === '1' || text === 'true') return true;
      if (text === '0' || text === 'false') return false;
      throw new TypeError(`must be 1 or 0 (true or false), got ${JSON.stringify(text)}`);
    },
  } as OptionSpec<boolean>,
  envId: { env: 'CLOUDFN_DEV_ENVID', parse: trimmed, default: 'env-dev' },
  serviceId: { env: 'CLOUDFN_DEV_SERVICEID', parse: trimmed, default: 'dev-service' },
};

/**
 * Reads the settings from `env`; a bad idle timeout throws PLATFORM_OPTIONS naming it.
 * @example readGatewayOptions(process.env, { appid: 'tt1' }).identity // { appid: 'tt1', envId: 'env-dev', serviceId: 'dev-service' }
 */
export function readGatewayOptions(env: Record<string, string | undefined>, user: { appid: string }): GatewaySettings {
  const { idleTimeoutMs, maxQueuedBytes, requireConnId, envId, serviceId } = readOptions(specs, { env }, gatewayArea);
  return { identity: { appid: user.appid, envId, serviceId }, idleTimeoutMs, maxQueuedBytes, requireConnId };
}

/** The variable that turns the gateway on under `cloudfn start` (as the config's `gateway: true`). */
export const GATEWAY_VAR = 'CLOUDFN_GATEWAY';

/** The config key that turns the gateway on under `cloudfn start`. */
export const GATEWAY_CONFIG_KEY = 'gateway';

/**
 * `CLOUDFN_GATEWAY` first, then the config file's `gateway`; blank is unset. A start-up option
 * of `cloudfn start`, refused as the runtime's options are (CLOUDFN_OPTIONS, printed as one line).
 */
const startArea = {
  ...envArea((_name, where, detail) => createError('CLOUDFN_OPTIONS', where, detail)),
  config: (name: string) => `cloudfn.config ${name}`,
};

const onOff: OptionSpec<boolean>['parse'] = (raw) => {
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).trim().toLowerCase();
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw new TypeError(`must be true or false (1 or 0 in ${GATEWAY_VAR}), got ${JSON.stringify(raw)}`);
};

/**
 * Whether `cloudfn start` runs the WebSocket gateway: `CLOUDFN_GATEWAY`, then `gateway` in
 * cloudfn.config, else off. A value that is not a boolean throws CLOUDFN_OPTIONS naming it.
 * @example gatewayEnabled({ env: process.env, config: { gateway: true } }) // true
 */
export function gatewayEnabled(sources: {
  env: Record<string, string | undefined>;
  config?: Readonly<Record<string, unknown>> | undefined;
}): boolean {
  const specs = { [GATEWAY_CONFIG_KEY]: { env: GATEWAY_VAR, default: false, parse: onOff } };
  return readOptions(specs, { env: sources.env, config: sources.config }, startArea)[GATEWAY_CONFIG_KEY];
}
