/**
 * The dev console page in a real browser (Debian's chromium driven by playwright-core): a JSON
 * POST and a multipart upload sent from the page, their results and live log lines read off it;
 * the live list of every request (and on open, those answered before), curl both ways (checked by running the real curl), drafts
 * remembered per function, the path box and query rows in sync, cancelling, the log filter.
 * Set CLOUDFN_SCREENSHOTS=<folder> to keep screenshots of each step.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerClient } from '../../src/client/index.js';
import { startDevServer } from '../../src/dev/index.js';
import { failure, startProject, type DevProject } from '../dev/project.js';
import { REPO } from '../testing/ensure-dist.js';
import { typecheckEvents } from '../testing/typecheck-events.js';

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
const CURL = '/usr/bin/curl';
/** Asynchronous: the dev server answering curl runs in this very process. */
const run = promisify(execFile);

/** The values of the query rows shown, as name=value. */
async function queryRows(page: Page): Promise<string[]> {
  return page.$$eval('#query tbody tr', (rows) =>
    rows
      .map((row) => Array.from(row.querySelectorAll<HTMLInputElement>('input.name, input.value'), (i) => i.value))
      .filter(([name]) => name !== '')
      .map(([name, value]) => `${name}=${value}`),
  );
}

/** The log lines not hidden by the filter. */
async function visibleLogs(page: Page): Promise<string[]> {
  return page.$$eval('#logs .log', (lines) =>
    lines
      .filter((line) => !(line as HTMLElement).hidden)
      .map((line) => line.querySelector('.log-msg')?.textContent ?? ''),
  );
}

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
    // A step that cannot happen fails in 5 s, naming itself, rather than at the test's timeout.
    page.setDefaultTimeout(5000);
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

  it('lists every request, whatever sent it, with its status, duration and log lines, and replays one', async () => {
    // Sent by node's fetch (as curl would be) and by callContainer: neither comes from the page.
    await p.get('/hello?name=outside');
    const { callContainer } = createContainerClient({ baseUrl: p.dev.url });
    expect((await callContainer({ path: '/echo', init: { method: 'POST', body: { via: 'client' } } })).statusCode).toBe(
      200,
    );
    if (existsSync(CURL)) await run(CURL, ['-s', '-o', '/dev/null', `${p.dev.url}/nowhere`]);
    const outside = page.locator('#requests .request-entry', { hasText: '/hello?name=outside' });
    await expect.poll(() => outside.count()).toBe(1);
    expect(await outside.getAttribute('data-trigger')).toBe('ide_debug');
    expect(await outside.locator('.request-status').textContent()).toBe('200');
    expect(await outside.locator('.request-duration').textContent()).toMatch(/^[\d.]+ m?s$/);
    const client = page.locator('#requests .request-entry', { hasText: 'POST' }).first();
    await expect.poll(() => client.locator('.url').textContent()).toBe('/echo');
    expect(await client.getAttribute('data-trigger')).toBe('online');
    if (existsSync(CURL)) {
      const missing = page.locator('#requests .request-entry', { hasText: '/nowhere' });
      await expect.poll(() => missing.locator('.request-status').textContent()).toBe('404');
    }

    // A click shows that request's lines, from the server's store.
    const logid = await outside.getAttribute('data-logid');
    await outside.locator('.load').click();
    await expect.poll(() => page.textContent('#logs-logid')).toBe(logid);
    await expect
      .poll(() => visibleLogs(page))
      .toEqual(['greeting outside', expect.stringMatching(/^GET \/hello 200 /)]);
    // Its trace id is shown, and links the lines of every request of that trace, and back.
    const traceId = await outside.getAttribute('data-trace-id');
    expect(traceId).toMatch(/^[\da-f]{32}$/);
    await expect.poll(() => page.textContent('#logs-trace')).toBe(traceId);
    await page.click('#logs-trace');
    await expect.poll(() => page.textContent('#logs-for')).toContain('every request');
    await expect
      .poll(() => visibleLogs(page))
      .toEqual(['greeting outside', expect.stringMatching(/^GET \/hello 200 /)]);
    await page.click('#logs-trace');
    await expect.poll(() => page.textContent('#logs-logid')).toBe(logid);

    // Replay: its method and URL go into the editor (under its function) and out again from the page.
    await outside.locator('.replay').click();
    await expect.poll(() => page.textContent('#response-body')).toContain('outside');
    expect(await page.inputValue('#path')).toBe('/hello?name=outside');
    expect(await page.locator('#functions .fn.active .fn-name').textContent()).toBe('hello');
    const replayed = page.locator('#requests .request-entry[data-trigger="console_debug"]', {
      hasText: '/hello?name=outside',
    });
    await expect.poll(() => replayed.count()).toBe(1);
    await shoot(page, '4-requests');
  });

  it('lists the requests answered before the page opened, on open, each once', async () => {
    await p.get('/hello?name=before-open');
    await p.get('/hello?name=also-before');
    const opened = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    opened.setDefaultTimeout(5000);
    await opened.goto(p.dev.consoleUrl);
    await opened.waitForSelector('body[data-ready="true"]');
    const urls = await opened.locator('#requests .request-entry .url').allTextContents();
    expect(urls.indexOf('/hello?name=also-before')).toBeGreaterThanOrEqual(0);
    // Newest first.
    expect(urls.indexOf('/hello?name=also-before')).toBeLessThan(urls.indexOf('/hello?name=before-open'));
    expect(urls.filter((url) => url === '/hello?name=before-open')).toHaveLength(1);
    // A click shows its lines, kept by the server.
    await opened.locator('#requests .request-entry', { hasText: '/hello?name=before-open' }).locator('.load').click();
    await expect
      .poll(() => visibleLogs(opened))
      .toEqual(['greeting before-open', expect.stringMatching(/^GET \/hello 200 /)]);
    await opened.close();
  });

  it('shows one grey line, and no error, for the Live room and Connections of a service without liveData or a WebSocket function', async () => {
    await expect.poll(() => page.locator('#live .live-absent').isVisible()).toBe(true);
    expect(await page.locator('#live .live-absent').textContent()).toMatch(
      /^not a live-room service: no liveData\.path/,
    );
    expect(await page.locator('#live .live-controls').isVisible()).toBe(false);
    expect(await page.locator('#live .problem').count()).toBe(0);
    expect(await page.locator('#connections .ws-absent').isVisible()).toBe(true);
    expect(await page.locator('#connections .ws-absent').textContent()).toMatch(/^no WebSocket function here/);
    expect(await page.locator('#connections .ws-body').isVisible()).toBe(false);
    expect(await page.locator('#connections .problem:visible').count()).toBe(0);
  });

  it('copies a request as curl that curl itself sends the same, and fills the editor from a pasted one', async () => {
    await page.click('#functions [data-fn="echo"]');
    await page.selectOption('#method', 'POST');
    await page.click('#tab-body');
    await page.selectOption('#body-type', 'json');
    await page.fill('#body-json', `{ "quote": "it's \\"here\\"" }`);
    await page.fill('#path', '/echo?x=1');
    await page.click('#tab-headers');
    await page.click('#headers-add');
    await page.locator('#headers input.name').last().fill('x-copy');
    await page.locator('#headers input.value').last().fill('1');
    await page.click('#tab-body');
    await page.click('#copy-curl');
    const command = await page.inputValue('#curl-text');
    expect(command).toContain(`curl -X POST '${p.dev.url}/echo?x=1' `);
    expect(command).toContain(
      `-H 'x-copy: 1' -H 'content-type: application/json' --data-raw '{ "quote": "it'\\''s \\"here\\"" }'`,
    );
    if (existsSync(CURL)) {
      // The command, run by a shell and the real curl, sends what the page would.
      const answer = JSON.parse((await run('sh', ['-c', `${command} -s`])).stdout) as Record<string, unknown>;
      expect(answer).toEqual({
        method: 'POST',
        trigger: 'ide_debug',
        contentType: 'application/json',
        params: { quote: `it's "here"` },
      });
    }

    // Multipart parts become -F, a file part naming its file.
    await page.selectOption('#body-type', 'multipart');
    const rows = page.locator('#body-parts tbody tr');
    await rows.nth(0).locator('input.name').fill('title');
    await rows.nth(0).locator('input.value').fill('holiday clip');
    await page.click('#body-parts-add');
    await rows.last().locator('select.kind').selectOption('file');
    await rows.last().locator('input.name').fill('video');
    await rows
      .last()
      .locator('input[type=file]')
      .setInputFiles({ name: 'clip.txt', mimeType: 'text/plain', buffer: Buffer.from('frames') });
    await expect.poll(() => rows.last().locator('.file-name').textContent()).toBe('clip.txt (6 B)');
    await page.click('#copy-curl');
    expect(await page.inputValue('#curl-text')).toContain(
      `-F 'title=holiday clip' -F 'video=@clip.txt;type=text/plain'`,
    );
    await page.click('#curl-close');

    // Paste: -X, -H, --data-raw and the URL with its query fill the editor.
    await page.click('#paste-curl');
    await page.fill(
      '#curl-input',
      `curl -X POST 'http://127.0.0.1:9/echo?lang=en&q=a%20b' \\\n  -H 'x-pasted: 1' -H 'Content-Type: application/json' \\\n  --data-raw '{"pasted":true}'`,
    );
    await page.click('#curl-apply');
    expect(await page.inputValue('#method')).toBe('POST');
    expect(await page.inputValue('#path')).toBe('/echo?lang=en&q=a%20b');
    expect(await page.inputValue('#body-type')).toBe('json');
    expect(await page.inputValue('#body-json')).toBe('{"pasted":true}');
    await page.click('#tab-headers');
    expect(await page.locator('#headers input.name').first().inputValue()).toBe('x-pasted');
    await page.click('#send');
    await expect.poll(() => page.textContent('#response-body')).toContain('"pasted"');
    expect(await page.textContent('#response-body')).toContain('"contentType": "application/json"');

    // -F, pasted into the path box: fields and a file part to choose.
    await page.locator('#path').evaluate((input, text) => {
      const data = new DataTransfer();
      data.setData('text/plain', text);
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, `curl -F title=trip -F 'video=@clip.mp4;type=video/mp4' http://localhost:8000/echo`);
    expect(await page.inputValue('#path')).toBe('/echo');
    await page.click('#tab-body');
    expect(await page.inputValue('#body-type')).toBe('multipart');
    const parts = page.locator('#body-parts tbody tr');
    expect(await parts.count()).toBe(2);
    expect(await parts.nth(0).locator('input.value').inputValue()).toBe('trip');
    expect(await parts.nth(1).locator('select.kind').inputValue()).toBe('file');
  });

  it('remembers the method and body of each function, and pre-selects POST for one that reads a body', async () => {
    p.write('functions/upload.ts', 'export default (params: unknown) => ({ got: Object.keys(params as object) });\n');
    p.write(
      'functions/limited.ts',
      'export const config = { maxBodySize: 1024 };\nexport default (params: unknown) => params;\n',
    );
    await expect.poll(() => page.locator('#functions [data-fn="limited"]').count()).toBe(1);
    await expect.poll(() => page.locator('#functions [data-fn="upload"]').count()).toBe(1);
    await page.click('#functions [data-fn="upload"]');
    expect(await page.inputValue('#method')).toBe('POST');
    await page.click('#tab-body');
    expect(await page.inputValue('#body-type')).toBe('multipart');
    await page.click('#functions [data-fn="limited"]');
    expect(await page.inputValue('#method')).toBe('POST');
    expect(await page.inputValue('#body-type')).toBe('json');
    await page.click('#functions [data-fn="env"]');
    expect(await page.inputValue('#method')).toBe('GET');

    // env sent as a POST with a text body once: it comes back so, after the page reloads too.
    await page.selectOption('#method', 'POST');
    await page.selectOption('#body-type', 'text');
    await page.fill('#body-text', 'remember me');
    await page.click('#functions [data-fn="modern"]');
    expect(await page.inputValue('#method')).toBe('GET');
    await page.click('#functions [data-fn="env"]');
    expect(await page.inputValue('#method')).toBe('POST');
    expect(await page.inputValue('#body-text')).toBe('remember me');
    await page.waitForTimeout(300); // the drafts are saved 200 ms after the last edit
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#functions .fn.active .fn-name').textContent()).toBe('env');
    expect(await page.inputValue('#method')).toBe('POST');
    expect(await page.inputValue('#body-type')).toBe('text');
    expect(await page.inputValue('#body-text')).toBe('remember me');
    p.remove('functions/upload.ts');
    p.remove('functions/limited.ts');
  });

  it('keeps the path box and the query rows in sync both ways', async () => {
    await page.click('#functions [data-fn="modern"]');
    await page.click('#tab-query');
    await page.fill('#path', '/modern?name=zoë&city=new%20york');
    expect(await queryRows(page)).toEqual(['name=zoë', 'city=new york']);
    expect(await page.textContent('#tab-query .count')).toBe('2');
    const rows = page.locator('#query tbody tr');
    await rows.nth(1).locator('input.value').fill('paris');
    expect(await page.inputValue('#path')).toBe('/modern?name=zoë&city=paris');
    await rows.nth(0).locator('input[type=checkbox]').uncheck();
    expect(await page.inputValue('#path')).toBe('/modern?city=paris');
    await page.click('#query-add');
    await rows.nth(3).locator('input.name').fill('a&b');
    await rows.nth(3).locator('input.value').fill('1+1');
    expect(await page.inputValue('#path')).toBe('/modern?city=paris&a%26b=1%2B1');
    // Typing the path keeps the unchecked row and replaces the others.
    await page.fill('#path', '/modern?only=this');
    expect(await queryRows(page)).toEqual(['only=this', 'name=zoë']);
    await page.click('#send');
    await expect
      .poll(() => page.locator('#requests .request-entry').first().locator('.url').textContent())
      .toBe('/modern?only=this');
  });

  it('cancels a request in flight and shows it cancelled', async () => {
    await page.click('#functions [data-fn="slow"]');
    await page.selectOption('#method', 'GET');
    await page.fill('#path', '/slow?ms=5000');
    await page.click('#send');
    await page.waitForSelector('#cancel:not([hidden])');
    expect(await page.textContent('#response-status')).toBe('sending…');
    const logid = await page.textContent('#logs-logid');
    await page.click('#cancel');
    await expect.poll(() => page.textContent('#response-status')).toBe('cancelled');
    expect(await page.isVisible('#send')).toBe(true);
    // The server saw the client go away: 499 under that request's logid.
    await expect
      .poll(() => p.records.find((r) => r.logid === logid && r['status'] !== undefined)?.['status'], { timeout: 8000 })
      .toBe(499);
    await shoot(page, '5-cancelled');
  });

  it('filters the log lines by level and by text', async () => {
    p.write(
      'functions/levels.ts',
      "export default (_p: unknown, service: any) => {\n  service.debug('cache miss');\n  service.info('disk read', { bytes: 12 });\n  service.warn('disk slow');\n  service.error('lost the lease');\n  return { ok: true };\n};\n",
    );
    await expect.poll(() => page.locator('#functions [data-fn="levels"]').count()).toBe(1);
    await page.click('#functions [data-fn="levels"]');
    await page.click('#send');
    await expect.poll(() => page.locator('#logs .log').count()).toBe(5);
    expect((await visibleLogs(page)).length).toBe(5);
    await page.selectOption('#log-level', 'warn');
    expect(await visibleLogs(page)).toEqual(['disk slow', 'lost the lease']);
    expect(await page.textContent('#logs-count')).toBe('2 of 5');
    await page.selectOption('#log-level', 'debug');
    await page.fill('#log-text', 'DISK');
    expect(await visibleLogs(page)).toEqual(['disk read { bytes: 12 }', 'disk slow']);
    await page.selectOption('#log-level', 'error');
    expect(await visibleLogs(page)).toEqual([]);
    await page.fill('#log-text', '');
    await page.selectOption('#log-level', 'debug');
    expect((await visibleLogs(page)).length).toBe(5);
    p.remove('functions/levels.ts');
  });

  it('shows a function that fails to compile, live, with its code frame', async () => {
    const failed = p.next(failure('hello'));
    p.write('functions/hello.ts', 'export default function hello( {\n');
    await failed;
    await expect.poll(() => page.locator('#functions [data-fn="hello"].failing').count()).toBe(1);
    await page.click('#functions [data-fn="hello"]');
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
    const events = await typecheckEvents(dev.consoleUrl);
    const typed = await browser.newPage();
    try {
      await typed.goto(`${dev.consoleUrl}#hello`);
      await typed.waitForSelector('body[data-ready="true"]');
      // The checker runs at a lower priority than the server (and here than the other test
      // files), and its first check is cold (TypeScript loads, reads the lib files): beside two
      // busy processes on the two cores it did not finish within 15 s, and in CI a save made
      // as the page loaded was not shown within 20 s. The save comes after the first check,
      // as in typecheck.test.ts, and the waits only bound a hang.
      await events.frame((f) => f.includes('"state":"done"'), 90_000, 'the first type check');
      writeFileSync(join(root, 'functions/hello.ts'), 'const count: number = "three";\n' + good);
      await typed.waitForSelector('#type-errors:not([hidden])', { timeout: 60_000 });
      expect(await typed.textContent('#type-errors h2')).toBe('1 type error');
      expect(await typed.textContent('#type-errors-list')).toContain(
        "functions/hello.ts:1:7: Type 'string' is not assignable to type 'number'. TS2322",
      );
      expect(await typed.locator('#functions .fn .type-flag').count()).toBe(1);
      await shoot(typed, '9-type-errors');
      writeFileSync(join(root, 'functions/hello.ts'), good);
      await typed.waitForSelector('#type-errors', { state: 'hidden', timeout: 60_000 });
      expect(await typed.locator('#functions .fn .type-flag').count()).toBe(0);
    } finally {
      await events.close();
      await typed.close();
      await dev.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 240_000);
});
