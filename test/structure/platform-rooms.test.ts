/**
 * The rooms of src/platform/ and which way they may import one another: the records (state/)
 * at the bottom, the keys and the background jobs on them, the HTTP answers on top; the SDK
 * stand-in, the gateway and the live-room simulator apart from the emulator's server. The
 * files at the root are the assembly (platform.ts, index.ts), which no room imports, and the
 * few every room shares (errors.ts, context.ts, platform-options.ts).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const PLATFORM = resolve(import.meta.dirname, '..', '..', 'src', 'platform');

/** The root files a room may import; the assembly is not among them. */
const SHARED = ['errors.ts', 'context.ts', 'platform-options.ts'];
/** At most this many entries at the root, so a newcomer finds the room. */
const MAX_ROOT_ENTRIES = 12;

/** For each room, the other rooms it may import. */
const ROOMS: Record<string, string[]> = {
  state: [],
  keys: ['state'],
  jobs: ['state'],
  http: ['jobs', 'state', 'keys'],
  sdk: ['state', 'gateway'],
  gateway: [],
  live: ['sdk'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** Where a file of src/platform/ imports inside src/platform/, as paths relative to it. */
function platformImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)]
    .map((match) => resolve(dirname(file), match[1] ?? match[2]!).replace(/\.js$/, '.ts'))
    .filter((target) => target.startsWith(PLATFORM + '/'))
    .map((target) => relative(PLATFORM, target));
}

const roomOf = (path: string): string => (path.includes('/') ? path.split('/')[0]! : '.');

describe('the rooms of src/platform/', () => {
  it(`keeps at most ${MAX_ROOT_ENTRIES} entries at the root, and every folder there is a known room`, () => {
    const entries = readdirSync(PLATFORM);
    expect(entries.length).toBeLessThanOrEqual(MAX_ROOT_ENTRIES);
    const folders = entries.filter((name) => statSync(join(PLATFORM, name)).isDirectory());
    expect(folders.sort()).toEqual(Object.keys(ROOMS).sort());
  });

  it('imports one way between rooms, and never the assembly from inside a room', () => {
    const crossings: string[] = [];
    for (const file of sourceFiles(PLATFORM)) {
      const from = relative(PLATFORM, file);
      const room = roomOf(from);
      if (room === '.') continue;
      for (const target of platformImports(file)) {
        const into = roomOf(target);
        const allowed = into === room || (into === '.' ? SHARED.includes(target) : ROOMS[room]!.includes(into));
        if (!allowed) crossings.push(`${from} -> ${target}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it('sees the imports it checks (the parser is not blind)', () => {
    expect(platformImports(join(PLATFORM, 'http', 'server.ts'))).toContain('http/api.ts');
    expect(platformImports(join(PLATFORM, 'jobs', 'upload-jobs.ts'))).toContain('state/views.ts');
  });
});
