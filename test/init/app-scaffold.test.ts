/**
 * `cloudfn init <dir> --services`: one root package.json (npm workspaces, one cloudfn
 * dependency, dev/test/build scripts), the root config listing the services, one README, and
 * each service from its template with nothing of its own to install twice.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findAppRoot } from '../../src/app/index.js';
import { initApp, parseServicesFlag } from '../../src/init/app-scaffold.js';

const work = mkdtempSync(join(tmpdir(), 'cloudfn-app-scaffold-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const json = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('parseServicesFlag', () => {
  it('reads name[:template], the bare service template by default', () => {
    expect(parseServicesFlag('game:live-room,rank,profile')).toEqual([
      { name: 'game', template: 'live-room' },
      { name: 'rank', template: 'service' },
      { name: 'profile', template: 'service' },
    ]);
  });

  it.each([
    ['Game', '"Game" is not a service'],
    ['game:nope', 'the template "nope", which does not exist'],
    ['rank,rank', 'names rank twice'],
    ['a:b:c', '"a:b:c" is not a service'],
  ])('refuses %s in one line', (flag, message) => {
    expect(() => parseServicesFlag(flag)).toThrow(message);
  });
});

describe('initApp', () => {
  const dir = join(work, 'shop');
  const result = initApp(dir, {
    services: parseServicesFlag('game:live-room,rank,profile'),
    layout: 'platform',
    isPublished: () => true,
  });

  it('writes one root package.json: workspaces, one cloudfn, the dev tools once, dev/test/build', () => {
    expect(result.services.map((s) => [s.name, s.template])).toEqual([
      ['game', 'live-room'],
      ['rank', 'service'],
      ['profile', 'service'],
    ]);
    const pkg = json(join(dir, 'package.json'));
    expect(pkg).toMatchObject({
      name: 'shop',
      private: true,
      workspaces: ['game', 'rank', 'profile'],
      dependencies: { cloudfn: '^0.1.0' },
      scripts: { dev: 'cloudfn dev', test: 'npm run test --workspaces --if-present', build: 'cloudfn build' },
    });
    expect(Object.keys(pkg['devDependencies'] as object).sort()).toEqual(['@types/node', 'typescript', 'vitest']);
    expect(json(join(dir, 'cloudfn.config.json'))).toEqual({ services: ['game', 'rank', 'profile'] });
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# shop\n/);
    expect(existsSync(join(dir, '.gitignore'))).toBe(true);
  });

  it('makes each service from its template, in the layout asked, with no cloudfn or vendor/ of its own', () => {
    for (const name of ['game', 'rank', 'profile']) {
      const pkg = json(join(dir, name, 'package.json'));
      expect(pkg['name']).toBe(`shop-${name}`);
      expect(pkg['dependencies']).not.toHaveProperty('cloudfn');
      expect(pkg).not.toHaveProperty('devDependencies');
      expect(pkg['scripts']).toMatchObject({ dev: 'cloudfn dev', test: 'vitest run' });
      expect(existsSync(join(dir, name, 'vendor'))).toBe(false);
      expect(json(join(dir, name, 'cloudfn.config.json'))).toMatchObject({
        functionsDir: '.',
        $schema: '../node_modules/cloudfn/docs/cloudfn.config.schema.json',
      });
    }
    expect(existsSync(join(dir, 'rank', 'hello.ts'))).toBe(true);
    expect(existsSync(join(dir, 'rank', 'test', 'hello.test.ts'))).toBe(true);
    expect(existsSync(join(dir, 'game', 'start_game.ts'))).toBe(true);
  });

  it('is an app root that every folder below finds', () => {
    expect(findAppRoot(join(dir, 'profile', 'test'))?.root).toBe(dir);
    expect(findAppRoot(dir)?.services.map((s) => s.name)).toEqual(['game', 'rank', 'profile']);
  });

  it('refuses a folder that is not empty', () => {
    expect(() => initApp(dir, { services: parseServicesFlag('rank'), isPublished: () => true })).toThrow(
      'exists and is not empty',
    );
  });
});
