/**
 * The dev console page in a real browser (Debian's chromium driven by playwright-core): a JSON
 * POST and a multipart upload sent from the page, their results and live log lines read off it.
 * Set CLOUDFN_SCREENSHOTS=<folder> to keep screenshots of each step.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer } from '../../src/dev/index.js';
import { failure, startProject, type DevProject } from '../dev/project.js';
import { REPO } from '../testing/ensure-dist.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];
const shots = process.env['CLOUDFN_SCREENSHOTS'];

async function shoot(page: Page, name: string): Promise<void> {
  if (shots !== undefined) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

describe.skipIf(!existsSync(CHROMIUM))('the dev console page in chromium', () => {
  let p: DevProject;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    p = await startProject();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${p.dev.consoleUrl}#echo`);
    await page.waitForSelector('body[data-ready="true"]');
  });
  afterAll(async () => {
    await browser?.close();
    await p?.close();
  });

  it('lists the functions and selects the one in the address', async () => {
    const names = await page.locator('#functions .fn-name').allTextContents();
    expect(names).toEqual(['bytes', 'crash', 'echo', 'env', 'hello', 'legacy', 'modern', 'slow']);
    await expect.poll(() => page.locator('#functions .fn.active .fn-name').textContent()).toBe('echo');
    expect(await page.inputValue('#path')).toBe('/echo');
  });

  it('sends a JSON POST and shows the response, its logid and its log lines live', async () => {
    await page.selectOption('#method', 'POST');
    await page.selectOption('#body-type', 'json');
    await page.fill('#body-json', '{ "name": "ann", "tags": ["a", "b"] }');
    await page.click('#tab-headers');
    await page.locator('#headers input.name').first().fill('x-demo');
    await page.locator('#headers input.value').first().fill('yes');
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');

    const body = JSON.parse((await page.textContent('#response-body')) ?? '') as Record<string, unknown>;
    expect(body).toEqual({
      method: 'POST',
      trigger: 'console_debug',
      contentType: 'application/json',
      params: { name: 'ann', tags: ['a', 'b'] },
    });
    const logid = await page.textContent('#response-logid');
    expect(logid).toMatch(/^console-[0-9a-f]{16}$/);

    // The lines come over server-sent events: the function's line, then the request line.
    await expect.poll(() => page.locator('#logs .log').count()).toBe(2);
    const lines = await page.locator('#logs .log .log-msg').allTextContents();
    expect(lines[0]).toContain('"event":"echo"');
    expect(lines[1]).toMatch(/^POST \/echo 200 [\d.]+ ms \d+ B$/);
    expect(await page.locator('#logs .log .log-fn').first().textContent()).toBe('echo');
    // They are the lines of that very request, as the server logged them.
    expect(p.records.filter((r) => r.logid === logid).map((r) => r.function)).toEqual(['echo', 'echo']);
    await expect.poll(() => page.textContent('#response-server-duration')).toMatch(/^[\d.]+ ms in server$/);

    await page.click('#response-tab-headers');
    expect(await page.textContent('#response-headers')).toContain(logid!);
    await page.click('#response-tab-body');
    await shoot(page, '1-json-post');
  });

  it('sends a multipart upload with a file and a field', async () => {
    await page.click('#tab-body');
    await page.selectOption('#body-type', 'multipart');
    const rows = page.locator('#body-parts tbody tr');
    await rows.nth(0).locator('input.name').fill('title');
    await rows.nth(0).locator('input.value').fill('holiday clip');
    await page.click('#body-parts-add');
    await rows.nth(1).locator('select.kind').selectOption('file');
    await rows.nth(1).locator('input.name').fill('video');
    await rows
      .nth(1)
      .locator('input[type=file]')
      .setInputFiles({ name: 'clip.txt', mimeType: 'text/plain', buffer: Buffer.from('frames of a holiday') });
    await expect.poll(() => rows.nth(1).locator('.file-name').textContent()).toBe('clip.txt (19 B)');
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');

    const body = JSON.parse((await page.textContent('#response-body')) ?? '') as {
      contentType: string;
      params: Record<string, unknown>;
      trigger: string;
    };
    expect(body.trigger).toBe('console_debug');
    expect(body.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(body.params).toEqual({
      title: 'holiday clip',
      video: { file: 'clip.txt', type: 'text/plain', size: 19, text: 'frames of a holiday' },
    });
    await expect.poll(() => page.locator('#logs .log').count()).toBe(2);
    expect((await page.locator('#logs .log .log-msg').first().textContent()) ?? '').toContain('multipart/form-data');
    await shoot(page, '2-multipart');
  });

  it('keeps a history to replay, newest first', async () => {
    const entries = page.locator('#history .history-entry');
    await expect.poll(() => entries.count()).toBe(2);
    expect(await entries.locator('.url').allTextContents()).toEqual(['/echo', '/echo']);
    const before = p.records.filter((r) => r['method'] === 'POST' && r['durationMs'] !== undefined).length;
    // Replay the JSON POST (the older entry): the same request goes out again.
    await entries.nth(1).locator('.replay').click();
    await expect
      .poll(() => p.records.filter((r) => r['method'] === 'POST' && r['durationMs'] !== undefined).length)
      .toBe(before + 1);
    await expect.poll(() => page.textContent('#response-body')).toContain('"ann"');
    expect(await page.locator('#body-json').inputValue()).toContain('"ann"');
    await expect.poll(() => entries.count()).toBe(3);
  });

  it('shows a binary response as a hex dump, and a GET with its query', async () => {
    await page.click('#functions [data-fn="bytes"]');
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');
    expect(await page.textContent('#response-body')).toBe(
      '00000000  00 01 02 ff 68 65 6c 6c  6f                       |....hello|',
    );

    await page.click('#functions [data-fn="hello"]');
    await page.selectOption('#method', 'GET');
    await page.click('#tab-query');
    await page.locator('#query input.name').first().fill('name');
    await page.locator('#query input.value').first().fill('zoë');
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-body')).toContain('hello, zoë');
    expect(await page.textContent('#response-body')).toContain('"console_debug"');
  });

  it('shows a function that fails to compile, live, with its code frame', async () => {
    const failed = p.next(failure('hello'));
    p.write('functions/hello.ts', 'export default function hello( {\n');
    await failed;
    await expect.poll(() => page.locator('#functions [data-fn="hello"].failing').count()).toBe(1);
    await expect.poll(() => page.locator('#function-error').isVisible()).toBe(true);
    expect(await page.textContent('#function-error pre')).toMatch(/functions\/hello\.ts:2:\d+: /);
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-status')).toBe('500 Internal Server Error');
    expect(await page.textContent('#response-body')).toContain('CLOUDFN_COMPILE_ERROR');
    await shoot(page, '3-compile-error');
  });

  it('keeps two object records logged in the same millisecond (de-duplicated on the server sequence)', async () => {
    const added = p.next((r) => String(r.msg).includes('twice'));
    p.write(
      'functions/twice.ts',
      "export default (_p: unknown, service: any) => {\n  const at = Date.now();\n  service.log({ step: 'uploaded', at });\n  service.log({ step: 'uploaded', at });\n  service.log({ step: 'transcoded', at });\n  return { ok: true };\n};\n",
    );
    await added;
    await page.locator('#functions .fn[data-fn="twice"]').click();
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-status')).toBe('200 OK');
    // Three records of the function (two identical but for their place) and the request line.
    await expect.poll(() => page.locator('#logs .log').count()).toBe(4);
    const lines = await page.locator('#logs .log .log-msg').allTextContents();
    expect(lines.slice(0, 3).map((l) => (JSON.parse(l.slice(l.indexOf('{'))) as { step: string }).step)).toEqual([
      'uploaded',
      'uploaded',
      'transcoded',
    ]);
    p.remove('functions/twice.ts');
  });

  it('shows type errors as a banner and on the function, and clears them when fixed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cloudfn-console-types-'));
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
    mkdirSync(join(root, 'functions'));
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', types: [] },
        include: ['functions'],
      }),
    );
    const good = 'export default (params: { name?: string }) => ({ hello: params.name ?? "world" });\n';
    writeFileSync(join(root, 'functions/hello.ts'), good);
    const dev = await startDevServer({ root, port: 0, typecheck: true, sink: { write() {} } });
    const typed = await browser.newPage();
    try {
      await typed.goto(`${dev.consoleUrl}#hello`);
      await typed.waitForSelector('body[data-ready="true"]');
      writeFileSync(join(root, 'functions/hello.ts'), 'const count: number = "three";\n' + good);
      await typed.waitForSelector('#type-errors:not([hidden])', { timeout: 20_000 });
      expect(await typed.textContent('#type-errors h2')).toBe('1 type error');
      expect(await typed.textContent('#type-errors-list')).toContain(
        "functions/hello.ts:1:7: Type 'string' is not assignable to type 'number'. TS2322",
      );
      expect(await typed.locator('#functions .fn .type-flag').count()).toBe(1);
      await shoot(typed, '9-type-errors');
      writeFileSync(join(root, 'functions/hello.ts'), good);
      await typed.waitForSelector('#type-errors', { state: 'hidden', timeout: 20_000 });
      expect(await typed.locator('#functions .fn .type-flag').count()).toBe(0);
    } finally {
      await typed.close();
      await dev.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
