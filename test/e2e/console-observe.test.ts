/**
 * The console page's metrics panel and timer buttons in a real browser (Debian's chromium):
 * a button per scheduled function fires it (the firing shows in the request list, a POST to the
 * function), and the metrics table counts the requests.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { startDevServer, type DevServer } from '../../src/dev/index.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

describe.skipIf(!existsSync(CHROMIUM))('the console page: metrics and timers', () => {
  let root: string;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cloudfn-observe-'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(
      join(root, 'functions', 'tick.mjs'),
      `export const config = { schedule: '0 0 3 * * *' };\nexport default (params, service) => ({ trigger: service.trigger });\n`,
    );
    writeFileSync(join(root, 'functions', 'hello.mjs'), `export default () => 'hi';\n`);
    dev = await startDevServer({ root, port: 0, sink: createMemorySink() });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(dev.consoleUrl);
    await page.waitForSelector('body[data-ready="true"]');
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('fires a scheduled function from its button and counts it in the metrics table', async () => {
    expect(await page.locator('#timers li').count()).toBe(1);
    expect(await page.locator('#timers li strong').textContent()).toBe('tick');
    expect(await page.locator('#timers li code').textContent()).toBe('0 0 3 * * *');

    await page.click('#timers [data-timer="tick"] button.fire');
    await expect
      .poll(() => page.locator('#timers .timer-result').textContent())
      .toMatch(/^answered 200 \(logid \S+\)$/);
    await expect.poll(() => page.locator('#requests').textContent()).toMatch(/^POST\/tick200/);

    await fetch(`${dev.url}/hello`);
    await fetch(`${dev.url}/nope`);
    await expect
      .poll(() => page.$$eval('#metrics tr', (rows) => rows.map((r) => r.textContent ?? '')), { timeout: 5000 })
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^hello2001/),
          expect.stringMatching(/^tick2001/),
          expect.stringMatching(/^\(none\)4041/),
        ]),
      );
  });
});
