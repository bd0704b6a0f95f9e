/**
 * The dev console page lists the server SDK stand-in's collections and shows the documents of
 * the one picked, in chromium; a function's write shows after its request.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../src/dev/index.js';
import { tempProject, type TempProject } from '../testing/project.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

describe.skipIf(!existsSync(CHROMIUM))('the console database panel in chromium', () => {
  let project: TempProject;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    project = tempProject({
      'functions/hello.ts': 'export default () => ({ hello: 1 });\n',
      // Written as the stand-in writes it: one JSON array per collection.
      '.cloudfn/platform/database/scores.json': JSON.stringify([
        { _id: 'a1', openId: 'open-1', score: 12 },
        { _id: 'a2', openId: 'open-2', score: 7 },
      ]),
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

  it('lists the collections with their sizes and shows the documents of the one clicked', async () => {
    await expect.poll(() => page.locator('#database button').allTextContents()).toEqual(['scores (2)']);
    await page.click('#database button');
    await expect
      .poll(async () => JSON.parse((await page.textContent('#database-docs pre')) ?? 'null'))
      .toEqual([
        { _id: 'a1', openId: 'open-1', score: 12 },
        { _id: 'a2', openId: 'open-2', score: 7 },
      ]);
  });

  it('refreshes after a request', async () => {
    project.write('.cloudfn/platform/database/visits.json', JSON.stringify([{ _id: 'v1' }]));
    await fetch(`${dev.url}/hello`);
    await expect.poll(() => page.locator('#database button').allTextContents()).toEqual(['scores (2)', 'visits (1)']);
  });
});
