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

  it('refuses an unknown layout, naming the choices', () => {
    expect(() => initProject(join(work, 'bad'), { ...published, layout: 'flat' as never })).toThrow(
      '--layout: there is no layout "flat"; choose one of functions, platform',
    );
  });
});
