/**
 * The console page's Live room and Timers panels in a real browser (Debian's chromium): a
 * timer shows its params and "fire now" shows the status and the body it answered; the Live
 * room panel starts a room's four tasks, then a comment and a gift sent as a viewer reach the
 * function at liveData.path, and its answer shows.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySink } from '../../runtime/log/sinks.js';
import { type DevServer, startDevServer } from '../../src/dev/index.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];

describe.skipIf(!existsSync(CHROMIUM))('the console page: live room and timers', () => {
  let root: string;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cloudfn-console-live-'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(
      join(root, 'functions', 'tick.mjs'),
      `export const config = { schedule: { cron: '0 0 3 * * *', params: { job: 'nightly' } } };\nexport default (params) => ({ ran: params.job });\n`,
    );
    writeFileSync(
      join(root, 'functions', 'live_data_callback.mjs'),
      `export default (params, service) => ({ type: service.headers['x-msg-type'], got: params.map((m) => m.content ?? m.sec_gift_id) });\n`,
    );
    writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ liveData: { path: '/live_data_callback' } }));
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

  it('shows a timer with its params, and fires it showing status and body', async () => {
    expect(await page.locator('#timers li .timer-params').textContent()).toBe('{"job":"nightly"}');
    // The next firing says its zone (the instant is its title).
    const next = page.locator('#timers li .timer-next');
    expect(await next.textContent()).toMatch(/^ next (\w+ \d+ )?\d\d:\d\d:\d\d (GMT|UTC)\S*$/);
    expect(new Date((await next.getAttribute('title'))!).getTime()).toBeGreaterThan(Date.now());
    await page.click('#timers [data-timer="tick"] button.fire');
    await expect
      .poll(() => page.locator('#timers .timer-result').textContent())
      .toMatch(/^answered 200 \(logid \S+\)$/);
    await expect.poll(() => page.locator('#timers .timer-body').textContent()).toContain('"ran": "nightly"');
  });

  it('starts a room and sends a comment and a gift as a viewer', async () => {
    await expect.poll(() => page.locator('#live .live-tasks').textContent()).toContain('no task running');
    await page.click('#live button.live-start');
    await expect.poll(() => page.locator('#live [data-task]').count()).toBe(4);
    await page.fill('#live input[name="content"]', 'join red');
    await page.click('#live button.live-comment');
    await expect
      .poll(() => page.locator('#live .live-result').textContent())
      .toMatch(/^live_comment: answered 200 \(logid \S+\)$/);
    await expect.poll(() => page.locator('#live .live-body').textContent()).toContain('"join red"');
    await page.fill('#live input[name="gift"]', 'rose');
    await page.click('#live button.live-gift');
    await expect.poll(() => page.locator('#live .live-body').textContent()).toContain('"rose"');
    // The answer wraps in the narrow column: no scroll box, either way.
    expect(
      await page.$eval('#live .live-body', (pre) => ({
        down: pre.scrollHeight - pre.clientHeight,
        across: pre.scrollWidth - pre.clientWidth,
        overflow: getComputedStyle(pre).overflowY,
      })),
    ).toEqual({ down: 0, across: 0, overflow: 'visible' });
    await expect.poll(() => page.locator('#requests').textContent()).toMatch(/POST\/live_data_callback200/);
  });
});
