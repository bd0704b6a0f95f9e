/**
 * The rooms of src/platform/ and which way they may import one another. At the root, one folder
 * per local service (the media API emulator, the server SDK's stand-in, the WebSocket gateway,
 * the live rooms, the app's components, the app's services, the object store) beside the files every service shares (errors.ts) and the public entry
 * (index.ts), which no service imports. Inside the emulator (media-api/) the same rule again:
 * the records (state/) at the bottom, the keys and the background jobs on them, the HTTP answers
 * on top, and its assembly (platform.ts), which no room imports.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const PLATFORM = resolve(import.meta.dirname, '..', '..', 'src', 'platform');
const MEDIA_API = join(PLATFORM, 'media-api');

interface Level {
  dir: string;
  /** For each room, the other rooms it may import. */
  rooms: Record<string, string[]>;
  /** The files beside the rooms that every room may import (the assembly is not among them). */
  shared: string[];
  /** Every file allowed beside the rooms. */
  files: string[];
}

/** The folders of src/platform that `cloudfn dev` does not run as an extension, and why. */
const NOT_DEV_SERVICES: Record<string, string> = {
  'media-api': 'a server of its own (cloudfn platform, cloudfn dev --platform)',
};

const LEVELS: Level[] = [
  {
    dir: PLATFORM,
    rooms: {
      'media-api': [],
      sdk: ['media-api', 'gateway'],
      gateway: [],
      live: ['sdk'],
      components: [],
      services: ['components', 'gateway', 'live'],
      storage: ['components'],
    },
    shared: ['errors.ts'],
    files: ['errors.ts', 'index.ts'],
  },
  {
    dir: MEDIA_API,
    rooms: { state: [], keys: ['state'], jobs: ['state'], http: ['jobs', 'state', 'keys'] },
    shared: ['context.ts', 'platform-options.ts'],
    files: ['context.ts', 'platform-options.ts', 'platform.ts'],
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Where a file imports inside `dir`, as paths relative to it. */
function importsWithin(dir: string, file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)]
    .map((match) => resolve(dirname(file), match[1] ?? match[2]!).replace(/\.js$/, '.ts'))
    .filter((target) => target.startsWith(dir + '/'))
    .map((target) => relative(dir, target));
}

const roomOf = (path: string): string => (path.includes('/') ? path.split('/')[0]! : '.');

describe.each(LEVELS.map((level) => [relative(PLATFORM, level.dir) || 'src/platform', level] as const))(
  'the rooms of %s',
  (_name, level) => {
    it('holds its rooms and its few files, nothing else', () => {
      const entries = readdirSync(level.dir);
      const folders = entries.filter((name) => statSync(join(level.dir, name)).isDirectory());
      expect(folders.sort()).toEqual(Object.keys(level.rooms).sort());
      expect(entries.filter((name) => !folders.includes(name)).sort()).toEqual([...level.files].sort());
    });

    it('imports one way between rooms, and never the assembly from inside a room', () => {
      const crossings: string[] = [];
      for (const file of sourceFiles(level.dir)) {
        const from = relative(level.dir, file);
        const room = roomOf(from);
        if (room === '.') continue;
        for (const target of importsWithin(level.dir, file)) {
          const into = roomOf(target);
          const allowed =
            into === room || (into === '.' ? level.shared.includes(target) : level.rooms[room]!.includes(into));
          if (!allowed) crossings.push(`${from} -> ${target}`);
        }
      }
      expect(crossings).toEqual([]);
    });
  },
);

describe('the platform rooms test', () => {
  it('sees the imports it checks (the parser is not blind)', () => {
    expect(importsWithin(MEDIA_API, join(MEDIA_API, 'http', 'server.ts'))).toContain('http/api.ts');
    expect(importsWithin(MEDIA_API, join(MEDIA_API, 'jobs', 'upload-jobs.ts'))).toContain('state/views.ts');
    expect(importsWithin(PLATFORM, join(PLATFORM, 'sdk', 'store.ts'))).toContain('media-api/state/atomic-file.ts');
  });

  it('gives every folder of src/platform an extension in a service.ts, or a reason it has none', () => {
    const without = Object.keys(LEVELS[0]!.rooms).filter((room) => !existsSync(join(PLATFORM, room, 'service.ts')));
    expect(without.sort()).toEqual(Object.keys(NOT_DEV_SERVICES).sort());
  });
});
