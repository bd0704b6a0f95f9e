import { describe, expect, it } from 'vitest';
import { defaultLimits, resolveOptions } from '../../runtime/options.js';

describe('resolveOptions: flag, then env, then config file, then default', () => {
  it('gives the documented defaults', () => {
    const options = resolveOptions();
    expect(options).toMatchObject({
      port: 8000,
      host: '0.0.0.0',
      timeout: 60000,
      shutdownTimeout: 8000,
      drainDelay: 5000,
      logidHeader: 'x-platform-logid',
      trigger: 'online',
      protoAction: 'error',
    });
    expect(options.triggerHeader).toBeUndefined();
    expect(options.limits).toEqual(defaultLimits);
    expect(options.limits.maxBodySize).toBe(10 * 1024 * 1024);
  });

  it('takes the most specific source', () => {
    const sources = {
      flags: { port: '3000' },
      env: { PORT: '4000', HOST: '127.0.0.1', CLOUDFN_MAX_BODY_SIZE: '2048' },
      config: { port: 5000, host: '::', timeout: 1234, limits: { maxBodySize: 99, maxFiles: 3 } },
    };
    const options = resolveOptions(sources);
    expect(options.port).toBe(3000);
    expect(options.host).toBe('127.0.0.1');
    expect(options.timeout).toBe(1234);
    expect(options.limits.maxBodySize).toBe(2048);
    expect(options.limits.maxFiles).toBe(3);
  });

  it('reads the lame-duck period from CLOUDFN_DRAIN_DELAY and cloudfn.config drainDelay', () => {
    expect(resolveOptions({ env: { CLOUDFN_DRAIN_DELAY: '0' } }).drainDelay).toBe(0);
    expect(resolveOptions({ config: { drainDelay: 2500 } }).drainDelay).toBe(2500);
  });

  it('reads allowedHosts as a list from the config file or a variable, or true; refuses a URL', () => {
    expect(resolveOptions().allowedHosts).toEqual([]);
    expect(resolveOptions({ config: { allowedHosts: ['Dev.Example.test', '.tunnel.test'] } }).allowedHosts).toEqual([
      'dev.example.test',
      '.tunnel.test',
    ]);
    expect(resolveOptions({ env: { CLOUDFN_ALLOWED_HOSTS: 'a.test, 192.168.1.20' } }).allowedHosts).toEqual([
      'a.test',
      '192.168.1.20',
    ]);
    expect(resolveOptions({ env: { CLOUDFN_ALLOWED_HOSTS: 'true' } }).allowedHosts).toBe(true);
    expect(() => resolveOptions({ env: { CLOUDFN_ALLOWED_HOSTS: 'https://a.test' } })).toThrow(
      /option allowedHosts is invalid: has "https:\/\/a\.test", which is not a host name; give names without scheme, port or path, .*\(from CLOUDFN_ALLOWED_HOSTS\)/,
    );
  });

  it('lower-cases configured header names', () => {
    expect(
      resolveOptions({ env: { CLOUDFN_LOGID_HEADER: 'X-Request-Id', CLOUDFN_TRIGGER_HEADER: 'X-Gateway-Trigger' } }),
    ).toMatchObject({ logidHeader: 'x-request-id', triggerHeader: 'x-gateway-trigger' });
  });

  it.each([
    [
      { flags: { port: 'abc' } },
      /option port is invalid: must be an integer from 0 to 65535, got "abc" \(from --port\)/,
    ],
    [{ env: { PORT: '70000' } }, /option port is invalid: .*"70000" \(from PORT\)/],
    [{ config: { timeout: -1 } }, /option timeout is invalid: .*got -1 \(from cloudfn.config timeout\)/],
    [{ env: { CLOUDFN_LOGID_HEADER: 'bad header' } }, /option logidHeader is invalid: must be an HTTP header name/],
    [
      { env: { CLOUDFN_PROTO_ACTION: 'ignore' } },
      /option protoAction is invalid: must be one of error, remove, got "ignore"/,
    ],
    [{ config: { limits: { maxFiles: 1.5 } } }, /option maxFiles is invalid/],
    [{ env: { CLOUDFN_DRAIN_DELAY: '5s' } }, /option drainDelay is invalid: .*got "5s" \(from CLOUDFN_DRAIN_DELAY\)/],
  ])('refuses a bad value with one line naming it: %j', (sources, message) => {
    expect(() => resolveOptions(sources)).toThrow(message);
  });
});
