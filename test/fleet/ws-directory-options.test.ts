/**
 * The Redis session directory's settings: defaults, the environment, code winning, and a bad
 * value refused with FLEET_BAD_SETTING naming the variable and the range.
 */
import { describe, expect, it } from 'vitest';
import { resolveDirectoryOptions } from '../../src/fleet/ws/directory-options.js';

describe('resolveDirectoryOptions', () => {
  it('defaults to a 3 s heartbeat, a 1 s push deadline and streams of 10,000', () => {
    expect(resolveDirectoryOptions({})).toEqual({
      heartbeatMs: 3000,
      pushTimeoutMs: 1000,
      streamMaxLen: 10_000,
      reapBatch: 200,
    });
  });

  it('reads the environment, and code wins over it', () => {
    const env = { CLOUDFN_WS_HEARTBEAT_MS: '500', CLOUDFN_WS_PUSH_TIMEOUT_MS: ' 250 ' };
    expect(resolveDirectoryOptions(env)).toMatchObject({ heartbeatMs: 500, pushTimeoutMs: 250 });
    expect(resolveDirectoryOptions(env, { heartbeatMs: 200 })).toMatchObject({ heartbeatMs: 200, pushTimeoutMs: 250 });
  });

  it.each([
    [
      'CLOUDFN_WS_HEARTBEAT_MS',
      '3s',
      /CLOUDFN_WS_HEARTBEAT_MS must be a whole number of milliseconds from 100 to 60000, got "3s"/,
    ],
    [
      'CLOUDFN_WS_PUSH_TIMEOUT_MS',
      '0',
      /CLOUDFN_WS_PUSH_TIMEOUT_MS must be a whole number of milliseconds from 10 to 60000, got "0"/,
    ],
  ])('refuses %s=%s with FLEET_BAD_SETTING', (name, value, message) => {
    let caught: unknown;
    try {
      resolveDirectoryOptions({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'FLEET_BAD_SETTING', status: 500 });
    expect((caught as Error).message).toMatch(message);
  });
});
