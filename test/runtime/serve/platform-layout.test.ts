/**
 * The platform's own project layout, in process: functions at the root (`functionsDir: "."`),
 * the gateway's X-TT-* headers trusted or stripped under start, and the WeChat `exports.main`
 * form named in its message.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { resolveOptions } from '../../../runtime/options.js';
import { callerHeaders, readCaller } from '../../../runtime/request/caller.js';
import { discoverFunctions } from '../../../runtime/serve/discover.js';
import { functionFromModule } from '../../../runtime/serve/load.js';
import { startProject } from '../../../runtime/serve/start.js';
import { createCompileHook } from '../../../src/build/compile.js';
import { resolveDevUser } from '../../../src/platform/gateway/dev-user.js';

const fixture = new URL('../../fixtures/platform-root/', import.meta.url).pathname;
const temps: string[] = [];
function copyFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-platform-'));
  temps.push(dir);
  cpSync(fixture, dir, { recursive: true });
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('functionsDir "."', () => {
  it('finds the functions at the root and skips config files, declarations, tests, helpers, dist and node_modules', () => {
    const dir = copyFixture();
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'old.mjs'), 'export default () => 1;');
    mkdirSync(join(dir, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'x', 'index.js'), 'module.exports = 1;');
    writeFileSync(join(dir, '.eslintrc.js'), 'module.exports = {};');
    writeFileSync(join(dir, 'cloudfn.config.mjs.bak'), '');
    expect(discoverFunctions(dir, '.').map((fn) => fn.name)).toEqual(['get_open_id', 'start_game']);
  });

  it('without it, a project with handler files at its root is told to set it', () => {
    const dir = copyFixture();
    rmSync(join(dir, 'cloudfn.config.json'));
    expect(() => discoverFunctions(dir)).toThrow(
      `${join(dir, 'functions')}: there is no functions folder, but get_open_id.ts, start_game.ts sit at the project root, as in the platform's layout; to serve them, set "functionsDir": "." in cloudfn.config.json (or pass --functions-dir .)`,
    );
  });

  it('is validated by the options module, from the flag, the env or the config', () => {
    expect(resolveOptions({ config: { functionsDir: './' } }).functionsDir).toBe('.');
    expect(resolveOptions({ config: { functionsDir: './src/functions/' } }).functionsDir).toBe('src/functions');
    expect(resolveOptions({ env: { CLOUDFN_FUNCTIONS_DIR: 'api' }, config: { functionsDir: '.' } }).functionsDir).toBe(
      'api',
    );
    expect(() => resolveOptions({ flags: { functionsDir: '../elsewhere' } })).toThrow(
      'option functionsDir is invalid: must be a folder inside the project, such as "functions" or "." (the root), got "../elsewhere" (from --functions-dir)',
    );
    expect(() => resolveOptions({ config: { functionsDir: '/srv' } })).toThrow(/from cloudfn.config functionsDir/);
    expect(() => resolveOptions({ config: { functionsDir: '/' } })).toThrow(
      /got "\/" \(from cloudfn.config functionsDir\)/,
    );
    expect(() => resolveOptions({ env: { CLOUDFN_FUNCTIONS_DIR: 'C:\\app' } })).toThrow(/from CLOUDFN_FUNCTIONS_DIR/);
  });

  it('is what cloudfn start serves', async () => {
    const dir = copyFixture();
    const sink = createMemorySink();
    const server = await startProject(dir, {
      flags: { port: '0', host: '127.0.0.1' },
      env: {},
      compile: createCompileHook(dir),
      logger: new Logger(sink),
      handleSignals: false,
      keepServing: false,
    });
    try {
      const res = await fetch(`${server.url}/start_game?player=ann`);
      expect(await res.json()).toEqual({ started: true, greeting: 'good luck, ann' });
      expect((await fetch(`${server.url}/vite.config`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('the gateway headers under cloudfn start', () => {
  const user = { 'x-tt-openid': 'ann', 'x-tt-appid': 'tt42', 'x-forwarded-for': '203.0.113.9, 10.0.0.1' };
  for (const [trust, expected] of [
    [undefined, { openid: null }],
    ['false', { openid: null }],
    ['true', { openid: 'ann', caller: { openid: 'ann', appid: 'tt42', ip: '203.0.113.9', anonymous: false } }],
  ] as const) {
    it(`are ${trust === 'true' ? 'trusted' : 'stripped'} with CLOUDFN_TRUST_GATEWAY_HEADERS ${trust ?? 'unset'}`, async () => {
      const dir = copyFixture();
      const server = await startProject(dir, {
        flags: { port: '0', host: '127.0.0.1' },
        env: trust === undefined ? {} : { CLOUDFN_TRUST_GATEWAY_HEADERS: trust },
        compile: createCompileHook(dir),
        logger: new Logger(createMemorySink()),
        handleSignals: false,
        keepServing: false,
      });
      try {
        const res = await fetch(`${server.url}/get_open_id`, { headers: user });
        expect(await res.json()).toEqual(expected);
      } finally {
        await server.close();
      }
    });
  }
});

describe('the caller', () => {
  it('is read from the headers, and a user written as them reads back the same', () => {
    expect(readCaller({})).toBeUndefined();
    expect(readCaller({ 'x-tt-appid': 'tt1' })).toBeUndefined();
    const user = {
      openid: 'ann',
      appid: 'tt1',
      unionid: 'u1',
      env: 'production',
      source: 'miniapp',
      ip: '198.51.100.2',
    };
    expect(readCaller(callerHeaders(user))).toEqual({ ...user, anonymous: false });
    expect(readCaller(callerHeaders({ anonymous: true, openid: 'ann', appid: 'tt1', unionid: 'u1' }))).toEqual({
      anonymousOpenid: 'anon-ann',
      appid: 'tt1',
      anonymous: true,
    });
    expect(() => callerHeaders({ openid: 'a\nb' })).toThrow(
      'user.openid must be a non-empty string of printable ASCII, got "a\\nb"',
    );
  });

  it('of cloudfn dev comes from the env, then devUser in the config, then the defaults', () => {
    expect(resolveDevUser({})).toEqual({
      openid: 'dev-openid',
      appid: 'tt-dev-app',
      unionid: 'dev-unionid',
      env: 'development',
      source: 'miniapp',
      ip: '127.0.0.1',
    });
    const user = resolveDevUser({
      env: { CLOUDFN_DEV_OPENID: 'from-env', CLOUDFN_DEV_UNIONID: 'union-env' },
      config: { devUser: { openid: 'from-config', appid: 'tt-config' } },
    });
    expect(user).toMatchObject({ openid: 'from-env', appid: 'tt-config', unionid: 'union-env' });
    expect(() => resolveDevUser({ config: { devUser: { openId: 'x' } } })).toThrow(
      'option devUser is invalid: openId is not a field; the fields are openid, appid, unionid, env, source, ip, roomid, anchorOpenid, avatarUrl, nickname (from cloudfn.config devUser)',
    );
    expect(() => resolveDevUser({ env: { CLOUDFN_DEV_APPID: 'tt\u00e9' } })).toThrow(
      'option devUser.appid is invalid: must be a non-empty string of printable ASCII (it is sent in a header), got "tté" (from CLOUDFN_DEV_APPID)',
    );
  });
});

describe('a WeChat cloud function', () => {
  const main = async (event: unknown) => event;
  for (const [form, mod] of [
    ['exports.main (CommonJS)', { default: { main } }],
    ['export const main (ESM)', { main }],
  ] as const) {
    it(`(${form}) is told the one-line change`, () => {
      expect(() => functionFromModule(mod as Record<string, unknown>, 'login', 'login.js')).toThrow(
        'login.js exports main (event, context), the form of a WeChat cloud function; cloudfn calls the default export with (params, service): change the one line exports.main = async (event, context) => to module.exports = async (event, context) => (or export const main = to export default)',
      );
    });
  }

  it('with a default export as well, is served by the default', () => {
    const handler = async () => 1;
    expect(functionFromModule({ default: handler, main }, 'both', 'both.js').handler).toBe(handler);
  });
});
