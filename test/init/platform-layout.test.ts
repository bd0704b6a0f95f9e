/**
 * `cloudfn init --layout platform`: every template's functions at the project root, found by
 * the same discovery as in its functions/ layout, with functionsDir "." and the tests, README
 * and tsconfig pointing at the root.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverFunctions } from '../../runtime/serve/discover.js';
import { initProject, type InitOptions, listTemplates } from '../../src/init/scaffold.js';
import { SDK_ENV_FILE, SDK_ENV_TEXT } from '../../src/init/platform-layout.js';
import { PLATFORM_ENV_FILE, PLATFORM_ENV_TEST_FILE } from '../../src/init/platform-env-files.js';

const work = mkdtempSync(join(tmpdir(), 'cloudfn-init-platform-'));
const published: InitOptions = { isPublished: () => true };
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('initProject with layout platform', () => {
  for (const template of listTemplates()) {
    it(`moves the ${template} template's functions to the root and sets functionsDir "."`, () => {
      const usual = initProject(join(work, `${template}-usual`), { ...published, template });
      const dir = join(work, `${template}-platform`);
      initProject(dir, { ...published, template, layout: 'platform' });
      expect(existsSync(join(dir, 'functions'))).toBe(false);
      expect(JSON.parse(readFileSync(join(dir, 'cloudfn.config.json'), 'utf8'))).toMatchObject({
        functionsDir: '.',
        sdk: 'stand-in',
      });
      // The choice is explained where the user reads first.
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('"sdk": "stand-in"');
      // .env.example names no functions/ file the layout moved.
      if (existsSync(join(dir, '.env.example')))
        expect(readFileSync(join(dir, '.env.example'), 'utf8')).not.toContain('functions/');
      const names = (root: string, folder: string) => discoverFunctions(root, folder).map((fn) => fn.name);
      expect(names(dir, '.')).toEqual(names(usual.dir, 'functions'));
      for (const file of readdirSync(join(dir, 'test'), { recursive: true }).map(String)) {
        if (file.endsWith('.ts'))
          expect(readFileSync(join(dir, 'test', file), 'utf8'), file).not.toMatch(/functions\//);
      }
      expect(readFileSync(join(dir, 'tsconfig.json'), 'utf8')).not.toMatch(/"functions"/);
      // The server SDK's types, for tsc and the editor (test/typecheck/sdk-types.test.ts).
      expect(readFileSync(join(dir, SDK_ENV_FILE), 'utf8')).toBe(SDK_ENV_TEXT);
      // Only the live-room template, whose functions import the SDK, ships it in either layout.
      expect(existsSync(join(usual.dir, SDK_ENV_FILE))).toBe(template === 'live-room');
    });
  }

  it("shows how to read the platform's CLOUD_ENV and SERVICE_ID, and names the service settings", async () => {
    const dir = join(work, 'starter-env');
    const { files } = initProject(dir, { ...published, layout: 'platform' });
    expect(files).toEqual(expect.arrayContaining([PLATFORM_ENV_FILE, PLATFORM_ENV_TEST_FILE]));
    // A module at the root, but not a function: its name starts with _.
    expect(discoverFunctions(dir, '.').map((fn) => fn.name)).not.toContain('_platform-env');
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    for (const word of ['CLOUD_ENV', 'SERVICE_ID', '"serviceId"', '"innerCall"', '"components"', "=== 'PROD'"])
      expect(readme, word).toContain(word);
    // The module as the platform runs it: read at load, PROD only when the platform says PROD.
    const saved = { env: process.env['CLOUD_ENV'], id: process.env['SERVICE_ID'] };
    try {
      process.env['CLOUD_ENV'] = 'PROD';
      process.env['SERVICE_ID'] = 'game';
      const prod = await import(`${join(dir, PLATFORM_ENV_FILE)}?prod`);
      expect([prod.cloudEnv, prod.isProd, prod.serviceId]).toEqual(['PROD', true, 'game']);
      expect(prod.innerCallUrl('profile', '/get_profile?openid=o1')).toBe(
        'http://game-profile.inner-call.dyc.ivolces.com/get_profile?openid=o1',
      );
      process.env['CLOUD_ENV'] = 'DEV';
      delete process.env['SERVICE_ID'];
      const dev = await import(`${join(dir, PLATFORM_ENV_FILE)}?dev`);
      expect([dev.cloudEnv, dev.isProd, dev.serviceId]).toEqual(['DEV', false, '']);
      expect(() => dev.innerCallUrl('profile', '/x')).toThrow(/SERVICE_ID is not set/);
    } finally {
      for (const [key, value] of [
        ['CLOUD_ENV', saved.env],
        ['SERVICE_ID', saved.id],
      ] as const)
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
    }
  });

  it('refuses an unknown layout, naming the choices', () => {
    expect(() => initProject(join(work, 'bad'), { ...published, layout: 'flat' as never })).toThrow(
      '--layout: there is no layout "flat"; choose one of functions, platform',
    );
  });
});
