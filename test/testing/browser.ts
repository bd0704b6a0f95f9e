/**
 * The browser of the console's end-to-end tests: Debian's chromium driven by playwright-core,
 * headless, launched the same way by every test that uses this helper. Tests skip when the
 * binary is missing (`describe.skipIf(!HAS_CHROMIUM)`).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser is installed here. */
export const HAS_CHROMIUM = existsSync(CHROMIUM);

/** Headless, without the sandbox a container lacks, GPU or a shared /dev/shm. */
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

/**
 * Launches chromium for one test file; close it in `afterAll`.
 * @example const browser = await launchChromium(); const page = await browser.newPage();
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
