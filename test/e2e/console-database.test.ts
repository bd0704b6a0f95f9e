/**
 * The dev console's database panel in chromium: it lists the server SDK stand-in's collections
 * and the documents of the one picked, follows writes made by functions and by another process
 * without a click, and edits the store: a document edited as JSON (refused while it is not an
 * object, or when the server refuses it), added, deleted, a collection cleared, the store
 * exported and imported. The page writes as the dev server's own origin, while a page of another
 * site (evil.example, resolved to this machine by chromium) writes nothing and reads nothing:
 * its form POST and text/plain fetch are refused 403, and so is its name rebound onto the dev
 * server's port (issue 50).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer, startDevServer as StartDevServer } from '../../src/dev/index.js';
import type * as Database from '../../src/platform/sdk/database/index.js';
import { ensureDist, REPO } from '../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../testing/project.js';

// The built package: a function's `@open-dy/node-server-sdk` import resolves to the built stand-in.
let startDevServer: typeof StartDevServer;
let exportStore: typeof Database.exportStore;
let importStore: typeof Database.importStore;
let checkDump: typeof Database.checkDump;

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

describe.skipIf(!existsSync(CHROMIUM))('the console database panel in chromium', () => {
  let project: TempProject;
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  const dataDir = (): string => `${project.root}/.cloudfn/platform`;
  const shown = async (): Promise<unknown[]> =>
    Promise.all((await page.locator('#database-docs .db-doc pre').allTextContents()).map((t) => JSON.parse(t)));

  beforeAll(async () => {
    ensureDist();
    ({ startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as { startDevServer: typeof StartDevServer });
    ({ exportStore, importStore, checkDump } = (await import(
      `${REPO}/dist/src/platform/sdk/database/index.js`
    )) as typeof Database);
    project = tempProject({
      'functions/hello.ts': 'export default () => ({ hello: 1 });\n',
      'functions/add_score.ts': `import { dySDK } from '@open-dy/node-server-sdk';
export default async (params: { id: string; score: string }) =>
  dySDK.database().collection('scores').add({ _id: params.id, score: Number(params.score) });
`,
      // Written as the stand-in writes it: one JSON array per collection, dates as {"$date"}.
      '.cloudfn/platform/database/scores.json': JSON.stringify([
        { _id: 'a1', openId: 'open-1', score: 12, at: { $date: '2026-01-31T08:00:00.000Z' } },
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
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page.setDefaultTimeout(5000);
    await page.goto(`${dev.url}/_cloudfn/`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    project?.remove();
  });

  it('lists the collections with their sizes and shows the documents of the one clicked, dates as {"$date"}', async () => {
    await expect.poll(() => page.locator('#database button').allTextContents()).toEqual(['scores (2)']);
    await page.click('#database button');
    await expect.poll(shown).toEqual([
      { _id: 'a1', openId: 'open-1', score: 12, at: { $date: '2026-01-31T08:00:00.000Z' } },
      { _id: 'a2', openId: 'open-2', score: 7 },
    ]);
  });

  it("follows a function's write, and a write outside any request (as cloudfn db makes), without a click", async () => {
    const added = await fetch(`${dev.url}/add_score?id=f1&score=3`);
    expect(await added.text()).toContain('"_id":"f1"');
    await expect
      .poll(() => page.locator('#database button').allTextContents(), { timeout: 5000 })
      .toEqual(['scores (3)']);
    // No request is seen: only the feed's database event (the store's files changed) refreshes the page.
    await importStore(dataDir(), checkDump({ visits: [{ _id: 'v1' }] }, 'test'), { merge: false });
    await expect
      .poll(() => page.locator('#database button').allTextContents(), { timeout: 5000 })
      .toEqual(['scores (3)', 'visits (1)']);
  });

  it('edits a document as JSON: refuses what is not an object, shows the server refusal, saves a good one', async () => {
    const row = page.locator('#database-docs .db-doc[data-id="a2"]');
    await row.locator('.db-edit').click();
    const editor = row.locator('textarea.db-json');
    expect(JSON.parse(await editor.inputValue())).toEqual({ openId: 'open-2', score: 7 });

    await editor.fill('{ "score": 8, ');
    await row.locator('.db-save').click();
    await expect.poll(() => row.locator('.db-problem').textContent()).toMatch(/^not JSON: /);

    await editor.fill('[1, 2]');
    await row.locator('.db-save').click();
    await expect.poll(() => row.locator('.db-problem').textContent()).toBe('a document is a JSON object, got an array');

    // The server's check: an invalid date is refused, and the document is unchanged.
    await editor.fill('{ "score": 8, "at": { "$date": "yesterday" } }');
    await row.locator('.db-save').click();
    await expect.poll(() => row.locator('.db-problem').textContent()).toMatch(/at is not a valid date/);
    expect((await exportStore(dataDir()))['scores']!.find((d) => d._id === 'a2')).toEqual({
      _id: 'a2',
      openId: 'open-2',
      score: 7,
    });

    await editor.fill('{ "openId": "open-2", "score": 99, "at": { "$date": "2026-02-01T00:00:00.000Z" } }');
    await row.locator('.db-save').click();
    await expect
      .poll(async () => (await exportStore(dataDir()))['scores']!.find((d) => d._id === 'a2'))
      .toEqual({ _id: 'a2', openId: 'open-2', score: 99, at: new Date('2026-02-01T00:00:00.000Z') });
    await expect
      .poll(async () => (await shown()).find((d) => (d as { _id: string })._id === 'a2'))
      .toEqual({
        _id: 'a2',
        openId: 'open-2',
        score: 99,
        at: { $date: '2026-02-01T00:00:00.000Z' },
      });
    await expect.poll(() => row.locator('textarea').count()).toBe(0);
  });

  it('adds a document and deletes one', async () => {
    await page.click('#database-docs .db-add');
    await page.fill('#database-docs .db-adder textarea', '{ "_id": "n1", "score": 1 }');
    await page.click('#database-docs .db-adder .db-save');
    await expect.poll(() => page.locator('#database-docs .db-doc[data-id="n1"]').count()).toBe(1);
    // Each document wraps in the narrow column without a scroll box; its links stand apart.
    const row = page.locator('#database-docs .db-doc[data-id="a1"]');
    expect(
      await row.locator('pre').evaluate((pre) => ({
        down: pre.scrollHeight - pre.clientHeight,
        across: pre.scrollWidth - pre.clientWidth,
      })),
    ).toEqual({ down: 0, across: 0 });
    expect(await row.textContent()).toContain('edit · delete');
    const [edit, del] = await Promise.all([
      row.locator('.db-edit').boundingBox(),
      row.locator('.db-delete').boundingBox(),
    ]);
    expect(del!.x - (edit!.x + edit!.width)).toBeGreaterThanOrEqual(6);
    await page.click('#database-docs .db-doc[data-id="a1"] .db-delete');
    await expect.poll(async () => (await shown()).map((d) => (d as { _id: string })._id)).toEqual(['a2', 'f1', 'n1']);
  });

  it('exports the store as a file and imports it back after the collection is cleared', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('.db-export')]);
    const saved = await download.path();
    const dump = JSON.parse(readFileSync(saved, 'utf8')) as Record<string, { _id: string }[]>;
    expect(dump['scores']!.map((d) => d._id)).toEqual(['a2', 'f1', 'n1']);
    expect(dump['scores']![0]).toMatchObject({ at: { $date: '2026-02-01T00:00:00.000Z' } });

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#database-docs .db-clear');
    await expect.poll(() => page.locator('#database button').allTextContents()).toEqual(['scores (0)', 'visits (1)']);

    await page.setInputFiles('.db-import-file', saved);
    await expect.poll(() => page.locator('#database button').allTextContents()).toEqual(['scores (3)', 'visits (1)']);
    await expect.poll(() => page.textContent('.db-status')).toMatch(/^imported /);
  });

  it('keeps a page of another site from writing or reading: form POST, text/plain fetch and a rebound name get 403', async () => {
    const before = await exportStore(dataDir());
    const import_ = `${dev.url}/_cloudfn/api/database/import?merge=1`;
    const collection = `${dev.url}/_cloudfn/api/database/collections/secrets`;
    // The attacker's page: a form that posts a dump as text/plain, and a script's no-cors fetch.
    const site: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<form id="f" method="post" enctype="text/plain" action="${import_}"><input name='{"secrets":[{"_id":"pwned","x":"' value='"}]}'></form>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const sitePort = (site.address() as AddressInfo).port;
    const devPort = new URL(dev.url).port;
    const evil = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...ARGS, '--host-resolver-rules=MAP evil.example 127.0.0.1'],
    });
    try {
      const attacker = await evil.newPage();
      attacker.setDefaultTimeout(5000);
      await attacker.goto(`http://evil.example:${sitePort}/`);
      const fetched = attacker.waitForResponse(collection);
      await attacker.evaluate(
        (url) =>
          void fetch(url, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: '{"_id":"pwned"}',
          }),
        collection,
      );
      expect((await fetched).status()).toBe(403);
      const [posted] = await Promise.all([
        attacker.waitForResponse(import_),
        attacker.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit()),
      ]);
      expect(posted.status()).toBe(403);
      // DNS rebinding: the same name pointed at the dev server's port sends Host evil.example.
      const rebinder = await evil.newPage();
      const rebound = await rebinder.goto(`http://evil.example:${devPort}/_cloudfn/api/database?collection=scores`);
      expect(rebound?.status()).toBe(403);
      expect(await rebound?.text()).toContain('CLOUDFN_DEV_HOST_NOT_ALLOWED');
    } finally {
      await evil.close();
      site.close();
    }
    expect(await exportStore(dataDir())).toEqual(before);
    // The console's own page still writes, after the refusals.
    await page.click('#database-docs .db-add');
    await page.fill('#database-docs .db-adder textarea', '{ "_id": "n2", "score": 2 }');
    await page.click('#database-docs .db-adder .db-save');
    await expect.poll(async () => (await exportStore(dataDir()))['scores']!.map((d) => d._id)).toContain('n2');
  });
});
