/**
 * findAppRoot: the app root found from the root, a service folder and below; a single project
 * has none; a bad `services` is refused in one line naming the file and the entry.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataHomeFor, findAppRoot } from '../../src/app/index.js';

function app(services: unknown, folders: string[] = ['game', 'rank']): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cloudfn-app-root-')));
  writeFileSync(join(root, 'cloudfn.config.json'), JSON.stringify({ services }));
  for (const folder of folders) {
    mkdirSync(join(root, folder, 'test'), { recursive: true });
    writeFileSync(join(root, folder, 'cloudfn.config.json'), JSON.stringify({ serviceId: folder }));
  }
  return root;
}

describe('findAppRoot', () => {
  it('finds the root from the root, a service folder and a folder below it', () => {
    const root = app(['game', 'rank']);
    for (const from of [root, join(root, 'rank'), join(root, 'rank', 'test')]) {
      const found = findAppRoot(from)!;
      expect(found.root).toBe(root);
      expect(found.services.map((s) => [s.name, s.dir])).toEqual([
        ['game', join(root, 'game')],
        ['rank', join(root, 'rank')],
      ]);
      expect(found.dataHome).toBe(join(root, '.cloudfn'));
    }
    expect(findAppRoot(root)!.current).toBeUndefined();
    expect(findAppRoot(join(root, 'rank', 'test'))!.current?.name).toBe('rank');
    expect(dataHomeFor(join(root, 'game'))).toBe(join(root, '.cloudfn'));
  });

  it('finds none above a single project, whose data home is its own', () => {
    const single = realpathSync(mkdtempSync(join(tmpdir(), 'cloudfn-single-')));
    writeFileSync(join(single, 'cloudfn.config.json'), '{}');
    expect(findAppRoot(single)).toBeUndefined();
    expect(dataHomeFor(single)).toBe(join(single, '.cloudfn'));
  });

  it.each([
    [[], '"services" must be a non-empty array'],
    [[3], '"services" lists 3'],
    [['../x'], 'not a folder below the app root'],
    [['game', 'shop'], 'the service folder "shop" does not exist'],
    [['game', 'game/'], 'lists "game/" twice'],
  ])('refuses services %j in one line', (services, message) => {
    const root = app(services);
    expect(() => findAppRoot(root)).toThrow(message);
    expect(() => findAppRoot(root)).toThrow(join(root, 'cloudfn.config.json'));
  });
});
