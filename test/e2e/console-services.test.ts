/**
 * The console's Services panel in chromium. In a real `cloudfn dev game profile` session, each
 * service's page lists both services with their URLs and consoles, marks its own, says which
 * ones it may call (innerCall, with the inner-call host) and that both answer (the other one
 * across origins), names an enabled target the session lacks, and shows the session's components
 * and which service uses each (profile, which uses none, sees game's). A dev
 * server whose session names services that are stopped, silent or another program shows each
 * as such.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/dev/index.js';
import { SESSION_VAR } from '../../src/platform/services/setting.js';
import { type SessionApp, startSessionApp } from '../dev/session-app.js';
import { HAS_CHROMIUM, launchChromium } from '../testing/browser.js';
import { freePort } from '../testing/free-port.js';
import { tempProject, type TempProject } from '../testing/project.js';

/** Each listed service's row as the page shows it. */
async function rows(
  page: Page,
): Promise<Record<string, { self: boolean; call: string; status: string; state: string }>> {
  return page.$$eval('#services li.svc', (items) =>
    Object.fromEntries(
      items.map((li) => [
        li.getAttribute('data-service') ?? '',
        {
          self: li.classList.contains('svc-self'),
          call: li.querySelector('.svc-call')?.textContent ?? '',
          status: li.querySelector('.svc-status')?.textContent ?? '',
          state: /svc-(up|odd|down|checking)/.exec(li.querySelector('.svc-status')?.className ?? '')?.[1] ?? '',
        },
      ]),
    ),
  );
}

describe.skipIf(!HAS_CHROMIUM)(
  'the console Services panel of a two-service session, in chromium',
  { timeout: 60_000 },
  () => {
    let app: SessionApp;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      app = await startSessionApp();
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(10_000);
    }, 90_000);
    afterAll(async () => {
      await browser?.close();
      await app?.stop();
    });

    it("shows game's side: itself, profile callable at its inner-call host and answering, billing missing", async () => {
      await page.goto(`${app.url('game')}/_cloudfn/`);
      await page.waitForSelector('body[data-ready="true"]');
      await expect.poll(async () => (await rows(page))['profile']?.state).toBe('up');
      const shown = await rows(page);
      expect(Object.keys(shown)).toEqual(['game', 'profile', 'billing']);
      expect(shown['game']).toMatchObject({ self: true, state: 'up' });
      expect(shown['game']!.status).toMatch(/^answers \(\d+ ms\)$/);
      expect(shown['profile']).toMatchObject({
        self: false,
        call: 'callable: http://game-profile.inner-call.dyc.ivolces.com/',
      });
      expect(shown['billing']).toMatchObject({
        state: 'down',
        status: 'in innerCall, not in this session: calls to http://game-billing.inner-call.dyc.ivolces.com/ fail',
      });
      expect(await page.textContent('#services li[data-service="profile"] .svc-url')).toBe(app.url('profile'));
      expect(await page.getAttribute('#services li[data-service="profile"] a.svc-console', 'href')).toBe(
        `${app.url('profile')}/_cloudfn/`,
      );
      expect(await page.locator('#services li[data-service="game"] a.svc-console').count()).toBe(0);
    });

    it('shows the components of the session, with their addresses and the services that use them', async () => {
      await expect
        .poll(() => page.locator('#services .svc-components li').allTextContents())
        .toEqual(['redis 127.0.0.1:6390 used by game', 'mysql 127.0.0.1:3307 used by game']);
    });

    it("follows the console link to profile's page, where game answers but is not callable", async () => {
      const [opened] = await Promise.all([
        page.context().waitForEvent('page'),
        page.click('#services li[data-service="profile"] a.svc-console'),
      ]);
      await opened.waitForSelector('body[data-ready="true"]');
      expect(opened.url().split('#')[0]).toBe(`${app.url('profile')}/_cloudfn/`);
      // game is another origin for this page: its dev server lets a loopback page read the answer.
      await expect.poll(async () => (await rows(opened))['game']?.state).toBe('up');
      const shown = await rows(opened);
      expect(Object.keys(shown)).toEqual(['game', 'profile']);
      expect(shown['profile']!.self).toBe(true);
      expect(shown['game']!.call).toBe("not in innerCall: profile's calls to it are refused");
      // profile uses none, but the session runs game's: its page lists them, and whose they are.
      await expect
        .poll(() => opened.locator('#services .svc-components li').allTextContents())
        .toEqual(['redis 127.0.0.1:6390 used by game', 'mysql 127.0.0.1:3307 used by game']);
      await opened.close();
    });
  },
);

describe.skipIf(!HAS_CHROMIUM)(
  'the Services panel when a listed service does not answer, in chromium',
  { timeout: 60_000 },
  () => {
    let project: TempProject;
    let dev: DevServer;
    let browser: Browser;
    let stranger: Server;
    let silent: TcpServer;
    const held: Socket[] = [];

    beforeAll(async () => {
      // A web server that is not cloudfn, and a port that accepts and never answers.
      stranger = createHttpServer((_req, res) => res.end('<h1>another program</h1>'));
      await new Promise<void>((resolve) => stranger.listen(0, '127.0.0.1', resolve));
      silent = createTcpServer((socket) => held.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (server: Server | TcpServer): number => (server.address() as { port: number }).port;
      const closed = await freePort();
      project = tempProject({
        'cloudfn.config.json': JSON.stringify({ serviceId: 'game', innerCall: ['gone'] }),
        'functions/hello.ts': 'export default () => ({ hello: 1 });\n',
      });
      // What a session hands its services: where every service listens (this one is added by itself).
      process.env[SESSION_VAR] = JSON.stringify({
        gone: `http://127.0.0.1:${closed}`,
        mute: `http://127.0.0.1:${port(silent)}`,
        other: `http://127.0.0.1:${port(stranger)}`,
      });
      try {
        dev = await startDevServer({
          root: project.root,
          port: 0,
          typecheck: false,
          sink: { write: () => {} },
          handleSignals: false,
        });
      } finally {
        delete process.env[SESSION_VAR];
      }
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await dev?.close();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent?.close(resolve));
      await new Promise((resolve) => stranger?.close(resolve));
      project?.remove();
    });

    it('says which one is stopped, which is silent past the timeout, and which is another program', async () => {
      const page = await browser.newPage();
      await page.goto(`${dev.url}/_cloudfn/`);
      await page.waitForSelector('body[data-ready="true"]');
      await expect
        .poll(async () => Object.values(await rows(page)).some((row) => row.state === 'checking'), { timeout: 15_000 })
        .toBe(false);
      const shown = await rows(page);
      expect(Object.keys(shown)).toEqual(['gone', 'mute', 'other', 'game']);
      expect(shown['game']).toMatchObject({ self: true, state: 'up' });
      expect(shown['gone']).toMatchObject({
        state: 'down',
        status: 'not answering: stopped, or it failed to start (see its lines in the terminal)',
        call: expect.stringMatching(/^callable: http:\/\/game-gone\.inner-call/),
      });
      expect(shown['mute']).toMatchObject({ state: 'down', status: 'no answer within 2 s' });
      expect(shown['other']).toMatchObject({
        state: 'odd',
        status: 'something answers there, but not a cloudfn dev server of this session',
      });
      await page.close();
    });
  },
);
