/**
 * The console page's params form in a real browser (Debian's chromium): a function declaring
 * its params gets one input per field, sending the form calls it with a JSON body, and the
 * issues of a 400 CLOUDFN_BAD_PARAMS are shown at their fields.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/dev/index.js';
import { REPO } from '../testing/ensure-dist.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
// Inside the repository, so that the function's `zod` import resolves to its node_modules.
const ROOT = join(REPO, 'test/fixtures/contract/.cloudfn/console-project');

describe.skipIf(!existsSync(CHROMIUM))('the console page drawing a form from config.params', () => {
  let dev: DevServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    rmSync(ROOT, { recursive: true, force: true });
    mkdirSync(join(ROOT, 'functions'), { recursive: true });
    writeFileSync(join(ROOT, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(ROOT, 'functions', 'order.ts'),
      `import { z } from 'zod';
export const config = {
  params: z.object({
    customer: z.string().min(1, 'give the customer'),
    qty: z.number().int().min(1, 'order at least one'),
    size: z.enum(['s', 'm', 'l']),
    gift: z.boolean().default(false),
    items: z.array(z.object({ sku: z.string() })).default([]),
  }),
};
export default (params: { customer: string; qty: number }) => ({ ok: true, customer: params.customer, qty: params.qty });
`,
    );
    dev = await startDevServer({ root: ROOT, port: 0, sink: { write() {} } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(5000);
    await page.goto(`${dev.consoleUrl}#order`);
    await page.waitForSelector('body[data-ready="true"]');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    rmSync(ROOT, { recursive: true, force: true });
  });

  it('has one input per field, typed from the schema', async () => {
    await page.waitForSelector('#params-form:not([hidden])');
    expect(await page.getAttribute('#params-form input[name="customer"]', 'type')).toBe('text');
    expect(await page.getAttribute('#params-form input[name="qty"]', 'type')).toBe('number');
    expect(await page.getAttribute('#params-form input[name="gift"]', 'type')).toBe('checkbox');
    expect(
      await page.$$eval('#params-form select[name="size"] option', (options) => options.map((o) => o.textContent)),
    ).toEqual(['s', 'm', 'l']);
    expect(await page.$('#params-form textarea[name="items"]')).not.toBeNull();
  });

  it('shows each issue of a 400 at its field', async () => {
    await page.fill('#params-form input[name="customer"]', '');
    await page.fill('#params-form input[name="qty"]', '0');
    await page.click('#params-form button.send');
    await expect.poll(() => page.textContent('#response-status')).toBe('400 Bad Request');
    await expect.poll(() => page.textContent('#params-form .form-issue[data-field="qty"]')).toBe('order at least one');
    expect(await page.textContent('#params-form .form-issue[data-field="customer"]')).toBe('give the customer');
  });

  it('sends the values as a JSON body and clears the issues', async () => {
    await page.fill('#params-form input[name="customer"]', 'ann');
    await page.fill('#params-form input[name="qty"]', '2');
    await page.click('#params-form button.send');
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');
    expect(JSON.parse((await page.textContent('#response-body')) ?? '')).toEqual({ ok: true, customer: 'ann', qty: 2 });
    expect(await page.textContent('#params-form .form-issue[data-field="qty"]')).toBe('');
  });
});
