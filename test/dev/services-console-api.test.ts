/**
 * What the dev console's Services panel reads, without a browser: `GET /_cloudfn/api/services`
 * and `GET /_cloudfn/api/components` of each service of a real `cloudfn dev game profile`
 * session (two processes), of a single-folder dev server, and which pages may read the services
 * answer across origins (only one served from a loopback address).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOrigin } from '../../src/dev/console/cors.js';
import { startDevServer } from '../../src/dev/index.js';
import type { ComponentsAnswer } from '../../src/platform/components/protocol.js';
import type { ServicesAnswer } from '../../src/platform/services/protocol.js';
import { tempProject } from '../testing/project.js';
import { type SessionApp, startSessionApp } from './session-app.js';

const getJson = async <T>(url: string): Promise<T> => {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
};

describe('the services and components answers of a two-service session', { timeout: 60_000 }, () => {
  let app: SessionApp;
  beforeAll(async () => {
    app = await startSessionApp();
  }, 90_000);
  afterAll(() => app?.stop());

  it("lists both services from game's side: itself, and profile as callable (its innerCall)", async () => {
    const game = app.url('game');
    const profile = app.url('profile');
    expect(await getJson<ServicesAnswer>(`${game}/_cloudfn/api/services`)).toEqual({
      self: 'game',
      innerCall: ['profile', 'billing'],
      services: [
        { id: 'game', url: game, console: `${game}/_cloudfn/`, self: true, enabled: false },
        { id: 'profile', url: profile, console: `${profile}/_cloudfn/`, self: false, enabled: true },
      ],
    });
  });

  it("lists both from profile's side, where game is not enabled", async () => {
    const answer = await getJson<ServicesAnswer>(`${app.url('profile')}/_cloudfn/api/services`);
    expect(answer.self).toBe('profile');
    expect(answer.innerCall).toEqual([]);
    expect(answer.services.map(({ id, self, enabled }) => ({ id, self, enabled }))).toEqual([
      { id: 'game', self: false, enabled: false },
      { id: 'profile', self: true, enabled: false },
    ]);
  });

  it('shows the components each service is given, with the addresses its functions read', async () => {
    const game = await getJson<ComponentsAnswer>(`${app.url('game')}/_cloudfn/api/components`);
    expect(game.components).toEqual([
      { name: 'redis', address: '127.0.0.1:6390' },
      { name: 'mysql', address: '127.0.0.1:3307' },
    ]);
    expect(await getJson<ComponentsAnswer>(`${app.url('profile')}/_cloudfn/api/components`)).toEqual({
      components: [],
    });
  });

  it('gives each function CLOUD_ENV=DEV and its own SERVICE_ID', async () => {
    expect(await getJson(`${app.url('game')}/env`)).toEqual({ cloudEnv: 'DEV', serviceId: 'game' });
    expect(await getJson(`${app.url('profile')}/env`)).toEqual({ cloudEnv: 'DEV', serviceId: 'profile' });
  });

  it("lets another local service's console read the services and components answers, and no other page", async () => {
    const url = `${app.url('profile')}/_cloudfn/api/services`;
    const allowed = async (origin: string, at = url): Promise<string | null> =>
      (await fetch(at, { headers: { origin } })).headers.get('access-control-allow-origin');
    const game = app.url('game');
    expect(await allowed(game)).toBe(game);
    expect((await fetch(url, { headers: { origin: game } })).headers.get('vary')).toBe('origin');
    expect(await allowed('http://localhost:5173')).toBe('http://localhost:5173');
    for (const origin of ['http://evil.example', 'http://localhost.evil.example', 'null', 'http://10.0.0.8:8000'])
      expect(await allowed(origin), origin).toBeNull();
    // The components too (each page lists the session's), to loopback pages only.
    const components = `${app.url('profile')}/_cloudfn/api/components`;
    expect(await allowed(game, components)).toBe(game);
    expect(await allowed('http://evil.example', components)).toBeNull();
    // The other answers stay same-origin, whoever asks.
    for (const name of ['functions', 'database', 'requests', 'logs'])
      expect(await allowed(game, `${app.url('profile')}/_cloudfn/api/${name}`), name).toBeNull();
  });
});

describe('the services answer of a single-folder dev server', () => {
  it('is one service: this one, with the innerCall it enables and no components', async () => {
    const project = tempProject({
      'cloudfn.config.json': JSON.stringify({ serviceId: 'solo', innerCall: ['profile'] }),
      'functions/hello.ts': 'export default () => ({ hello: 1 });\n',
    });
    const dev = await startDevServer({
      root: project.root,
      port: 0,
      typecheck: false,
      sink: { write: () => {} },
      handleSignals: false,
    });
    try {
      expect(await getJson<ServicesAnswer>(`${dev.url}/_cloudfn/api/services`)).toEqual({
        self: 'solo',
        innerCall: ['profile'],
        services: [{ id: 'solo', url: dev.url, console: `${dev.url}/_cloudfn/`, self: true, enabled: false }],
      });
      expect(await getJson<ComponentsAnswer>(`${dev.url}/_cloudfn/api/components`)).toEqual({ components: [] });
    } finally {
      await dev.close();
      project.remove();
    }
  });
});

describe('loopbackOrigin', () => {
  it.each([
    ['http://127.0.0.1:8001', 'http://127.0.0.1:8001'],
    ['http://127.1.2.3:9000', 'http://127.1.2.3:9000'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://[::1]:8000', 'http://[::1]:8000'],
    ['https://localhost', 'https://localhost'],
    ['http://127.0.0.1.evil.example', undefined],
    ['http://localhost.evil.example:8000', undefined],
    ['http://128.0.0.1:8000', undefined],
    ['http://127.0.0.256', undefined],
    ['http://127.0.0.1:8001/path', undefined],
    ['ftp://127.0.0.1', undefined],
    ['null', undefined],
    ['', undefined],
  ])('%j → %j', (origin, expected) => {
    expect(loopbackOrigin(origin)).toBe(expected);
  });
  it('takes no header as no origin', () => {
    expect(loopbackOrigin(undefined)).toBeUndefined();
  });
});
