/**
 * The console page's "Call as" picker in a real browser (Debian's chromium): a root-layout
 * project's get_open_id answers the dev user, another openid, or an anonymous caller; and a
 * live-room function answers the room and anchor typed into the picker.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProject, type DevProject } from '../dev/project.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const PLATFORM = fileURLToPath(new URL('../fixtures/platform-root', import.meta.url));

describe.skipIf(!existsSync(CHROMIUM))('the console page acting as a user', () => {
  let p: DevProject;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    p = await startProject({ env: { CLOUDFN_DEV_OPENID: 'dev-ann' } }, PLATFORM);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(5000);
    await page.goto(`${p.dev.consoleUrl}#get_open_id`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  afterAll(async () => {
    await browser?.close();
    await p?.close();
  });

  async function sendAndRead(): Promise<{ openid: string | null; caller?: Record<string, unknown> }> {
    const before = await page.textContent('#response-logid').catch(() => null);
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-logid')).not.toBe(before);
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');
    return JSON.parse((await page.textContent('#response-body')) ?? '') as never;
  }

  it('calls as the dev user by default', async () => {
    expect(await page.textContent('#caller-as option[value="dev"]')).toBe('dev user (dev-ann)');
    expect((await sendAndRead()).openid).toBe('dev-ann');
  });

  it('calls as another openid', async () => {
    await page.selectOption('#caller-as', 'openid');
    await page.fill('#caller-openid', 'bob');
    const body = await sendAndRead();
    expect(body.openid).toBe('bob');
    expect(body.caller).toMatchObject({ openid: 'bob', appid: 'tt-dev-app', anonymous: false });
  });

  it('calls anonymously', async () => {
    await page.selectOption('#caller-as', 'anonymous');
    const body = await sendAndRead();
    expect(body.openid).toBeNull();
    expect(body.caller).toMatchObject({ anonymousOpenid: 'anon-dev-ann', anonymous: true });
  });
});

const SDK_PROJECT = fileURLToPath(new URL('../fixtures/sdk-project', import.meta.url));

// The built package: from cloudfn's sources Node cannot require the stand-in's .ts for the
// fixture's CommonJS output (the installed package serves it as .js).
describe.skipIf(!existsSync(CHROMIUM))('the console page acting from a live room', () => {
  let root: string;
  let dev: { consoleUrl: string; close(): Promise<void> };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ensureDist();
    root = mkdtempSync(join(tmpdir(), 'cloudfn-console-room-'));
    cpSync(SDK_PROJECT, root, { recursive: true });
    const built = (await import(join(REPO, 'dist/src/dev/index.js'))) as typeof import('../../src/dev/index.js');
    dev = await built.startDevServer({
      root,
      port: 0,
      typecheck: false,
      sink: { write: () => {} },
      handleSignals: false,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(5000);
    await page.goto(`${dev.consoleUrl}#open_round`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('sends the room id and anchor of "Call as", which the SDK reads', async () => {
    await page.fill('#caller-roomid', '7000000000');
    await page.fill('#caller-anchor', 'anchor-ann');
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');
    expect(JSON.parse((await page.textContent('#response-body')) ?? '')).toEqual({
      opened: true,
      roomId: '7000000000',
      anchorOpenId: 'anchor-ann',
    });
  });
});
