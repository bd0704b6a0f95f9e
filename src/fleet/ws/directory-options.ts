/**
 * The settings of the Redis session directory, read in one place: how often a process says it
 * is alive (its liveness key lives three times that), how long a push waits for the owners of
 * its sessions, and the caps of the streams. From the environment (`CLOUDFN_WS_HEARTBEAT_MS`,
 * `CLOUDFN_WS_PUSH_TIMEOUT_MS`), else the defaults; code may pass its own (tests).
 */
import { envArea, type OptionSpec, readOptions, trimmed } from '../../../runtime/option-kit.js';
import { createFleetError } from '../errors.js';

/** The directory's settings. */
export interface DirectoryOptions {
  /** How often the liveness key is refreshed and dead processes looked for, in ms. @default 3000 */
  heartbeatMs: number;
  /** How long a session push waits for the owners' answers before the rest is failed, in ms. @default 1000 */
  pushTimeoutMs: number;
  /**
   * Most entries kept in an inbox, a reply stream or the broadcast stream (approximate trim): a
   * burst beyond it to a process that has not read yet trims the oldest, which then fail.
   * @default 10000
   */
  streamMaxLen: number;
  /** Most sessions of dead processes one reaping script claims or reads (it loops until none is left). @default 200 */
  reapBatch: number;
}

/** The variables read. */
export const DIRECTORY_ENV_VARS = Object.freeze({
  heartbeat: 'CLOUDFN_WS_HEARTBEAT_MS',
  pushTimeout: 'CLOUDFN_WS_PUSH_TIMEOUT_MS',
});

const area = envArea((_name, where, detail) => createFleetError('FLEET_BAD_SETTING', where, detail));

function millis(min: number, max: number): (raw: string, where: string) => number {
  return (raw, where) => {
    const text = trimmed(raw, where);
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max)
      throw new TypeError(`must be a whole number of milliseconds from ${min} to ${max}, got ${JSON.stringify(text)}`);
    return value;
  };
}

const specs = {
  heartbeatMs: { env: DIRECTORY_ENV_VARS.heartbeat, default: 3000, parse: millis(100, 60_000) } as OptionSpec<number>,
  pushTimeoutMs: {
    env: DIRECTORY_ENV_VARS.pushTimeout,
    default: 1000,
    parse: millis(10, 60_000),
  } as OptionSpec<number>,
};

/**
 * The settings from `env`, with `given` (from code) winning. A bad variable throws
 * FLEET_BAD_SETTING naming it and the accepted range.
 * @example resolveDirectoryOptions({ CLOUDFN_WS_HEARTBEAT_MS: '1000' }) // { heartbeatMs: 1000, pushTimeoutMs: 1000, ... }
 */
export function resolveDirectoryOptions(
  env: NodeJS.ProcessEnv = process.env,
  given: Partial<DirectoryOptions> = {},
): DirectoryOptions {
  const read = readOptions(specs, { env }, area);
  return {
    heartbeatMs: given.heartbeatMs ?? read.heartbeatMs,
    pushTimeoutMs: given.pushTimeoutMs ?? read.pushTimeoutMs,
    streamMaxLen: given.streamMaxLen ?? 10_000,
    reapBatch: given.reapBatch ?? 200,
  };
}
