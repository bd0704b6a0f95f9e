/**
 * The console's Live room panel with two rooms at once (issue 41), in chromium: rooms 7001 and
 * 7002, started by their anchors' calls, are listed with their anchors; picking 7002 sends the
 * comment into 7002 (the function sees room 7002 and its anchor); the token button mints a token
 * that `webcastmate/info` trades for the picked room.
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

describe.skipIf(!existsSync(CHROMIUM))('the console’s Live room panel with two rooms', () => {
  let root: string;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cloudfn-console-rooms-'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(
      join(root, 'functions', 'live_data_callback.mjs'),
      `export default (params, service) => ({ room: service.headers['x-roomid'], anchor: service.headers['x-anchor-openid'] });\n`,
    );
    writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ liveData: { path: '/live_data_callback' } }));
    dev = await startDevServer({ root, port: 0, sink: createMemorySink() });
    for (const [roomid, anchor] of [
      ['7001', 'anchor-a'],
      ['7002', 'anchor-b'],
    ] as const) {
      // As start_game's openApiInvoke sends it, with the calling request's room.
      await fetch(`${dev.url}/_cloudfn/live/api/live_data/task/start`, {
        method: 'POST',
        headers: { 'x-cloudfn-room-id': roomid, 'x-cloudfn-anchor-openid': anchor },
        body: JSON.stringify({ roomid, appid: 'tt-dev-app', msg_type: 'live_comment' }),
      });
    }
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

  it('lists both rooms with their anchors and sends into the one picked', async () => {
    await expect.poll(() => page.locator('#live [data-room]').count()).toBe(2);
    expect(await page.locator('#live [data-room="7002"]').textContent()).toContain('anchor anchor-b (from start_game)');
    await page.click('#live [data-room="7002"] button.live-pick');
    expect(await page.inputValue('#live input[name="roomid"]')).toBe('7002');
    await page.fill('#live input[name="content"]', 'to b');
    await page.click('#live button.live-comment');
    await expect.poll(() => page.locator('#live .live-body').textContent()).toContain('"room": "7002"');
    expect(await page.locator('#live .live-body').textContent()).toContain('"anchor": "anchor-b"');
  });

  it('mints a token for the picked room that webcastmate/info trades', async () => {
    await page.click('#live button.live-token');
    await expect.poll(() => page.locator('#live .live-result').textContent()).toContain('token of room 7002');
    const token = /: (\S+)$/.exec((await page.locator('#live .live-result').textContent()) ?? '')?.[1];
    const res = await fetch(`${dev.url}/_cloudfn/live/api/webcastmate/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-token': token ?? '' },
      body: JSON.stringify({ token }),
    });
    expect(JSON.parse(await res.text())).toMatchObject({
      err_no: 0,
      data: { info: { room_id: 7002, anchor_open_id: 'anchor-b' } },
    });
  });
});
