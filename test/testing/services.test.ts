/**
 * `startServices`: a handler of one service, run with `invoke`, calls another service of the app
 * at `http://{self}-{target}.inner-call.dyc.ivolces.com/` by fetch and by http.request, and that
 * service's real handlers (fixture projects, TypeScript) answer in this process. Calls the
 * platform refuses are refused with the fix, and `stop` gives the process back as it was.
 */
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { invoke, startServices, type TestServices } from '../../src/testing/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'services');
const GAME = join(FIXTURES, 'game');
const PROFILE = join(FIXTURES, 'profile');
const play = join(GAME, 'functions', 'play.ts');

interface Played {
  status?: number;
  answer?: {
    service: string;
    method: string;
    url: string;
    path: string;
    host: string;
    round: string;
    type: string;
    body: string;
  };
  failed?: string;
  code?: string | null;
}

const played = async (query: Record<string, string> = {}): Promise<Played> => {
  const res = await invoke(play, { query });
  expect(res.status).toBe(200);
  return res.json as Played;
};

describe('startServices: game calls profile, profile answers', () => {
  let services: TestServices;
  beforeAll(async () => {
    services = await startServices({ self: { root: GAME }, services: { profile: PROFILE } });
    vi.stubEnv('SERVICE_ID', services.env.SERVICE_ID);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await services.stop();
  });

  it('reads the caller from its config and serves profile on loopback', () => {
    expect(services.self).toBe('game');
    expect(services.env).toEqual({ SERVICE_ID: 'game', CLOUD_ENV: 'DEV' });
    expect(Object.keys(services.urls)).toEqual(['profile']);
    expect(services.urls['profile']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it.each([
    ['fetch', { round: '2', type: 'application/json' }],
    ['http', { round: '3', type: 'text/plain; charset=utf-8' }],
  ])('carries a %s call whole: method, path, query, headers, body', async (via, headers) => {
    const out = await played({ via });
    expect(out.status).toBe(200);
    expect(out.answer).toEqual({
      service: 'profile',
      method: 'POST',
      url: '/card?id=7&tag=a&tag=b',
      path: '/card',
      host: 'game-profile.inner-call.dyc.ivolces.com',
      ...headers,
      body: '{"score":3,"name":"李雷"}',
    });
    const line = services.logs['profile']!.at(-1)!;
    expect(line).toMatchObject({ function: 'card', method: 'POST', status: 200 });
  });

  it('answers a test that calls the host itself, outside any handler', async () => {
    const res = await fetch('http://game-profile.dycloud.service/card?from=test');
    expect(await res.json()).toMatchObject({
      method: 'GET',
      url: '/card?from=test',
      host: 'game-profile.dycloud.service',
    });
  });

  it('refuses https, as the platform does, by fetch and by http.request', async () => {
    for (const via of ['fetch', 'http']) {
      const out = await played({ via, scheme: 'https' });
      expect(out.failed).toContain('HTTP only');
      expect(out.failed).toContain('http://game-profile.inner-call.dyc.ivolces.com/<path>');
      expect(out.code).toBe('CLOUDFN_INTRANET_REFUSED');
    }
  });

  it('refuses a call naming another caller than SERVICE_ID', async () => {
    const out = await played({ from: 'profile', to: 'game' });
    expect(out.failed).toContain('this service is "game" (SERVICE_ID)');
    expect(services.refused.at(-1)).toBe(out.failed);
  });

  it('refuses a target the caller did not enable, naming innerCall in its config', async () => {
    const out = await played({ to: 'billing' });
    expect(out.failed).toContain('"billing" is not enabled for "game"');
    expect(out.failed).toContain('innerCall in game/cloudfn.config.json');
  });
});

describe('startServices: a target not enabled, or not started', () => {
  let services: TestServices | undefined;
  afterEach(async () => {
    await services?.stop();
    services = undefined;
  });

  it('refuses profile calling game, which profile did not enable', async () => {
    services = await startServices({ self: { root: PROFILE }, services: { game: GAME } });
    const res = await invoke(join(PROFILE, 'functions', 'ask-game.ts'));
    const out = res.json as Played;
    expect(out.failed).toMatch(
      /^inner call profile -> game: "game" is not enabled for "profile"; add "game" to innerCall in profile\/cloudfn.config.json/,
    );
    expect(out.code).toBe('CLOUDFN_INTRANET_REFUSED');
    // Nothing reached game.
    expect(services.logs['game']).toEqual([]);
  });

  it('takes the enabled targets as a list when self is an id', async () => {
    services = await startServices({ self: 'game', services: { profile: PROFILE }, innerCall: [] });
    vi.stubEnv('SERVICE_ID', 'game');
    try {
      const out = await played();
      expect(out.failed).toContain('add "profile" to the innerCall list given to startServices');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('enables every service it started when self is an id without a list', async () => {
    services = await startServices({ self: 'game', services: { profile: PROFILE } });
    const out = await played({ from: 'game' });
    expect(out.answer?.service).toBe('profile');
  });

  it('names startServices as the fix for an enabled target it did not start', async () => {
    services = await startServices({ self: 'game', services: { profile: PROFILE }, innerCall: ['profile', 'billing'] });
    const out = await played({ from: 'game', to: 'billing' });
    expect(out.failed).toContain('no service "billing" runs here (services: profile)');
    expect(out.failed).toContain("startServices({ services: { billing: '<its project folder>' } })");
  });
});

describe('startServices: stop gives the process back', () => {
  // A fresh connection each time (agent: false): node's global agent keeps sockets alive, and
  // one left from the call to the started service was reset once it stopped (ECONNRESET, seen
  // once with two suites on the cores), where the question is whether the host is resolved.
  const failure = (): Promise<string | undefined> =>
    new Promise((resolve) => {
      http
        .get('http://game-profile.inner-call.dyc.ivolces.com/card', { agent: false }, (res) => {
          res.resume();
          resolve(`answered ${res.statusCode}`);
        })
        .on('error', (error: Error & { code?: string }) => resolve(error.code));
    });

  it('leaves fetch, http and https as they were, so the host fails as before', async () => {
    const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')];
    const before = {
      fetch: (await played({ from: 'game' })).code,
      http: await failure(),
      createConnection: http.Agent.prototype.createConnection,
      addRequest: (https.Agent.prototype as unknown as { addRequest: unknown }).addRequest,
    };
    // No DNS answers the platform's intranet names off the platform (here: ENOTFOUND).
    expect(before.fetch).toMatch(/^E[A-Z_]+$/);
    expect(before.http).toBe(before.fetch);

    const services = await startServices({ self: 'game', services: { profile: PROFILE } });
    try {
      expect((await played({ from: 'game', via: 'http' })).answer?.service).toBe('profile');
    } finally {
      await services.stop();
    }

    expect((await played({ from: 'game' })).code).toBe(before.fetch);
    expect(await failure()).toBe(before.http);
    expect(http.Agent.prototype.createConnection).toBe(before.createConnection);
    expect((https.Agent.prototype as unknown as { addRequest: unknown }).addRequest).toBe(before.addRequest);
    if (dispatcher !== undefined)
      expect((globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')]).toBe(dispatcher);
    // A second stop is harmless, and another set may start now.
    await services.stop();
    const again = await startServices({ self: 'game', services: { profile: PROFILE } });
    await again.stop();
  });
});

describe('startServices: bad options are refused with the fix, and nothing is left running', () => {
  it('refuses a second set while one runs', async () => {
    const services = await startServices({ self: 'game', services: { profile: PROFILE } });
    try {
      await expect(startServices({ self: 'game', services: { profile: PROFILE } })).rejects.toThrow(
        'the services called by game still run in this process; stop() them',
      );
    } finally {
      await services.stop();
    }
  });

  it('refuses a service id that cannot be a hostname label', async () => {
    await expect(startServices({ self: 'game', services: { Profile: PROFILE } })).rejects.toThrow(
      'the service id "Profile" is not a service id',
    );
    await expect(startServices({ self: 'Game_1', services: {} })).rejects.toThrow('self "Game_1" is not a service id');
  });

  it('refuses a folder that is not there, naming it', async () => {
    await expect(startServices({ self: 'game', services: { profile: 'no/such/folder' } })).rejects.toThrow(
      'no/such/folder: service profile has no such folder',
    );
  });

  it('refuses an id that contradicts the project serviceId', async () => {
    await expect(startServices({ self: 'game', services: { users: PROFILE } })).rejects.toThrow(
      'whose cloudfn.config.json has serviceId "profile"',
    );
  });

  it('refuses innerCall beside a self root, whose config lists them', async () => {
    await expect(startServices({ self: { root: GAME }, services: {}, innerCall: ['profile'] })).rejects.toThrow(
      'give innerCall or self: { root }, not both',
    );
  });

  it('stops what it started when a later service fails', async () => {
    await expect(startServices({ self: 'game', services: { profile: PROFILE, users: PROFILE } })).rejects.toThrow(
      'serviceId "profile"',
    );
    // The first one was stopped and the guard released: a new set starts.
    const services = await startServices({ self: 'game', services: { profile: PROFILE } });
    await services.stop();
  });
});
