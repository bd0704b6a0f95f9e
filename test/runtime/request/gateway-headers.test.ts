/**
 * One rule for every header only the platform sets (runtime/request/gateway-headers.ts): each
 * one, identity, live room, WebSocket gateway, live-data line and logid, is removed under
 * `cloudfn start` unless `trustGatewayHeaders` is on, and kept when it is; the same in the
 * function-service adapter, where the build trusts them unless told not to. Table-driven, one
 * row per header, both ways; and the forged live room of issue 30 (a curl naming another
 * anchor's room at a start_game-like function).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionServiceHandler, type PlatformContext } from '../../../runtime/function-service/adapter.js';
import { Logger } from '../../../runtime/log/logger.js';
import { createMemorySink } from '../../../runtime/log/sinks.js';
import { GATEWAY_HEADERS, stripGatewayHeaders } from '../../../runtime/request/gateway-headers.js';
import { startProject } from '../../../runtime/serve/start.js';
import type { RunningServer as StartedServer } from '../../../runtime/serve/start.js';
import { TOOL_CONFIG_KEYS } from '../../../src/build/project-config.js';
import { createCompileHook } from '../../../src/build/compile.js';
import { invoke } from '../../../src/testing/index.js';
import { tempProject } from '../../testing/project.js';

/** The list as issue 30 asks for it, with where each header comes from. */
const EXPECTED: Record<string, string> = {
  'x-tt-openid': 'identity',
  'x-tt-appid': 'identity',
  'x-tt-unionid': 'identity',
  'x-tt-anonymous-openid': 'identity',
  'x-tt-env': 'identity',
  'x-tt-source': 'identity',
  'x-room-id': 'live-room',
  'x-avatar-url': 'live-room',
  'x-nick-name': 'live-room',
  'x-tt-event-type': 'websocket',
  'x-tt-sessionid': 'websocket',
  'x-tt-envid': 'websocket',
  'x-tt-serviceid': 'websocket',
  'x-tt-ws-conn-id': 'websocket',
  'x-tt-service-path': 'websocket',
  'x-anchor-openid': 'live-data',
  'x-roomid': 'live-data',
  'x-msg-type': 'live-data',
  'x-tt-logid': 'logid',
};

/** Headers that are not the platform's claims: kept either way. */
const KEPT = ['x-forwarded-for', 'x-signature', 'x-nonce-str', 'x-timestamp', 'x-request-id', 'user-agent'];

describe('the list', () => {
  it('strips every platform-set header, from each of its sources', () => {
    const sources = new Set(Object.values(EXPECTED));
    for (const source of sources) {
      const headers: Record<string, string> = { host: 'a' };
      for (const [name, from] of Object.entries(EXPECTED)) if (from === source) headers[name] = `v-${name}`;
      expect(stripGatewayHeaders(headers), source).toBe(true);
      expect(headers, source).toEqual({ host: 'a' });
    }
  });

  it('strips each listed header and nothing else, and says whether it found one', () => {
    const headers: Record<string, string> = {};
    for (const name of [...GATEWAY_HEADERS, ...KEPT]) headers[name] = `v-${name}`;
    expect(stripGatewayHeaders(headers)).toBe(true);
    expect(Object.keys(headers).sort()).toEqual([...KEPT].sort());
    expect(stripGatewayHeaders({ host: 'a', 'x-forwarded-for': '1.2.3.4' })).toBe(false);
  });
});

const echo = tempProject({
  'functions/echo.ts': 'export default (_params: unknown, service: { headers: object }) => service.headers;\n',
});
const temps: string[] = [];
afterAll(() => {
  echo.remove();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function start(root: string, trust: boolean): Promise<StartedServer> {
  return startProject(root, {
    flags: { port: '0', host: '127.0.0.1' },
    env: trust ? { CLOUDFN_TRUST_GATEWAY_HEADERS: 'true' } : {},
    compile: createCompileHook(root),
    // The config file's tool keys (checkRequests, liveData), as cloudfn start accepts them.
    configKeys: TOOL_CONFIG_KEYS,
    logger: new Logger(createMemorySink()),
    handleSignals: false,
    keepServing: false,
  });
}

for (const trust of [false, true]) {
  describe(`under cloudfn start with trustGatewayHeaders ${trust}`, () => {
    let server: StartedServer;
    beforeAll(async () => {
      server = await start(echo.root, trust);
    });
    afterAll(() => server.close());

    it.each(Object.entries(EXPECTED))(`%s (%s) is ${trust ? 'kept' : 'stripped'}`, async (name) => {
      const res = await fetch(`${server.url}/echo`, { headers: { [name]: 'forged-1', 'x-request-id': 'r1' } });
      const seen = (await res.json()) as Record<string, string>;
      expect(seen[name]).toBe(trust ? 'forged-1' : undefined);
      expect(seen['x-request-id']).toBe('r1');
    });
  });
}

describe('the forged live room of issue 30', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cloudfn-sdk-project-'));
    temps.push(dir);
    cpSync(new URL('../../fixtures/sdk-project/', import.meta.url).pathname, dir, { recursive: true });
    // Only the TypeScript functions: from cloudfn's sources Node cannot require the stand-in's
    // .ts for save_score.js (the built package can; test/platform/sdk/loading.test.ts).
    rmSync(join(dir, 'save_score.js'));
  });

  // curl -H 'X-Anchor-OpenID: someone-elses-anchor' -H 'X-Room-ID: 999' /open_round
  const forged = { 'X-Anchor-OpenID': 'someone-elses-anchor', 'X-Room-ID': '999' };

  it('opens no round in another anchor’s room under cloudfn start', async () => {
    const server = await start(dir, false);
    try {
      const res = await fetch(`${server.url}/open_round`, { headers: forged });
      expect(await res.json()).toEqual({ opened: false, roomId: null, anchorOpenId: null });
    } finally {
      await server.close();
    }
  });

  it('reads the room behind the gateway (trusted)', async () => {
    const server = await start(dir, true);
    try {
      const res = await fetch(`${server.url}/open_round`, { headers: forged });
      expect(await res.json()).toEqual({ opened: true, roomId: '999', anchorOpenId: 'someone-elses-anchor' });
    } finally {
      await server.close();
    }
  });
});

describe('the function-service adapter', () => {
  function context(headers: Record<string, string>): PlatformContext {
    const none = (): void => undefined;
    return {
      headers,
      httpMethod: 'GET',
      path: '/echo',
      url: '/echo',
      query: {},
      cookies: {},
      trigger: 'online',
      set: none,
      remove: none,
      setCookie: none,
      clearCookie: none,
      status: none,
      log: none,
      debug: none,
      info: none,
      warn: none,
      error: none,
    };
  }
  const handler = functionServiceHandler((_params, service) => ({ ...service.headers }), 'echo');
  const untrusting = functionServiceHandler((_params, service) => ({ ...service.headers }), 'echo', {
    trustGatewayHeaders: false,
  });

  it.each(Object.keys(EXPECTED))('%s is kept by default and stripped with trustGatewayHeaders false', async (name) => {
    const given = { [name]: 'v', 'x-forwarded-for': '1.2.3.4' };
    expect(await handler({}, context(given))).toEqual(given);
    const platformHeaders = { ...given };
    expect(await untrusting({}, context(platformHeaders))).toEqual({ 'x-forwarded-for': '1.2.3.4' });
    // The platform's own object is left as it was.
    expect(platformHeaders).toEqual(given);
  });
});

describe('invoke of cloudfn/testing', () => {
  const fixture = new URL('../../fixtures/sdk-project/', import.meta.url).pathname;
  const message = {
    method: 'POST',
    headers: { 'x-roomid': 'room-1', 'x-msg-type': 'live_comment', 'x-anchor-openid': 'anchor-1' },
    body: [{ msg_id: 'm-1' }],
  };

  it('removes the live-data line’s headers as cloudfn start does', async () => {
    const res = await invoke('relay_message.ts', message, { cwd: fixture });
    expect(res.json).toEqual({ anchor: null, kind: null, firstMessage: 'm-1' });
  });

  it('keeps them for a call that stands behind the gateway', async () => {
    const res = await invoke('relay_message.ts', message, { cwd: fixture, runtime: { trustGatewayHeaders: true } });
    expect(res.json).toEqual({ anchor: 'anchor-1', kind: 'live_comment', firstMessage: 'm-1' });
  });
});
