/**
 * The console's Connections panel in chromium: a client opened from the page connects to the
 * dev server's WebSocket gateway (query parameters, as a browser must), its uplink reaches the
 * function, the function's push (a plain fetch of the platform's push host) reaches the client, and
 * the list and the activity lines show each step.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../src/dev/index.js';
import { gatewayOf } from '../dev/project.js';
import { tempProject, type TempProject } from '../testing/project.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

describe.skipIf(!existsSync(CHROMIUM))('the console Connections panel in chromium', () => {
  let project: TempProject;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    project = tempProject({
      'functions/websocket_callback.ts': `export default async (params: unknown, service: { headers: Record<string, string> }) => {
  if (service.headers['x-tt-event-type'] !== 'uplink') return { ok: true };
  await fetch('http://ws-push.dyc.ivolces.com/ws/push_data', {
    method: 'POST',
    headers: { 'x-tt-ws-sessionids': JSON.stringify([service.headers['x-tt-sessionid']]) },
    body: 'echo:' + String(params),
  });
  return { ok: true };
};
`,
    });
    dev = await startDevServer({
      root: project.root,
      port: 0,
      typecheck: false,
      sink: { write: () => {} },
      handleSignals: false,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(5000);
    await page.goto(`${dev.url}/_cloudfn/`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    project?.remove();
  });

  it('connects a client, sends an uplink and shows the push', async () => {
    await page.fill('#connections input[aria-label="openid"]', 'console-user');
    await page.click('#connections button:text("Connect")');
    await expect.poll(() => page.textContent('.ws-client')).toContain('— open');
    await expect.poll(() => page.textContent('#connections .connections')).toContain('as console-user');
    await page.fill('.ws-client input[aria-label="uplink"]', 'hi');
    await page.click('.ws-client button:text("Send")');
    await expect.poll(() => page.textContent('.ws-client .logs')).toContain('← echo:hi');
    const lines = () => page.locator('.ws-activity li').allTextContents();
    await expect
      .poll(async () => (await lines()).some((l) => l.includes('uplink') && l.includes(': hi → 200')))
      .toBe(true);
    await expect
      .poll(async () => (await lines()).some((l) => l.includes('push (session)') && l.includes('echo:hi')))
      .toBe(true);
    expect(
      gatewayOf(dev)
        .sessions()
        .map((s) => s.openid),
    ).toEqual(['console-user']);
  });
});
