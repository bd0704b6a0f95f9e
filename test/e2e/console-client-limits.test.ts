/**
 * The console's WebSocket client keeps the platform client's limits (issue 41), in chromium: the
 * page is one mini-program client, so its sixth socket is refused with the client's
 * `connectSocket:fail` before any upgrade (no session is listed for it), and a socket sent to the
 * background closes 5 s later with 1000, the function's disconnect following.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../src/dev/index.js';
import type { GatewayActivity } from '../../src/platform/gateway/protocol.js';
import { gatewayOf } from '../dev/project.js';
import { tempProject, type TempProject } from '../testing/project.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

describe.skipIf(!existsSync(CHROMIUM))('the console’s client limits in chromium', () => {
  let project: TempProject;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  const activity: GatewayActivity[] = [];

  beforeAll(async () => {
    project = tempProject({ 'functions/websocket_callback.ts': 'export default async () => ({ ok: true });\n' });
    dev = await startDevServer({ root: project.root, port: 0, typecheck: false, sink: { write: () => {} } });
    gatewayOf(dev).observe((a) => activity.push(a));
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

  it('refuses a sixth socket, and closes one 5 s after background', async () => {
    await page.fill('#connections input[aria-label="openid"]', 'phone');
    for (let i = 1; i <= 5; i++) {
      await page.click('#connections button:text("Connect")');
      await expect.poll(() => gatewayOf(dev).sessions().length).toBe(i);
    }
    await page.click('#connections button:text("Connect")');
    await expect.poll(() => page.textContent('#connections .ws-limit')).toContain('connectSocket:fail');
    await new Promise((r) => setTimeout(r, 300));
    expect(gatewayOf(dev).sessions()).toHaveLength(5);
    expect(activity.filter((a) => a.type === 'connect')).toHaveLength(5);

    const started = Date.now();
    await page.locator('.ws-client .ws-background').first().click();
    await expect.poll(() => gatewayOf(dev).sessions().length, { timeout: 10_000 }).toBe(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4500);
    expect(activity.find((a) => a.type === 'disconnect')).toMatchObject({
      code: 1000,
      reason: 'the app went to the background',
    });
    // A place is free again.
    await page.click('#connections button:text("Connect")');
    await expect.poll(() => gatewayOf(dev).sessions().length).toBe(5);
  }, 30_000);
});
