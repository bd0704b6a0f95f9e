/**
 * The "Done means" of issue 51 (stand-ins answer by the routes and hosts they declare), read
 * from the sources: what `cloudfn start` imports to learn the config keys, and where the
 * stand-ins' mechanisms may appear.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

/** The files `file` imports, type-only and dynamic imports included. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) =>
    resolve(dirname(file), match[1] ?? match[2]!).replace(/\.js$/, '.ts'),
  );
}

/** Every file reachable from `entry` through imports. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [join(REPO, entry)];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    try {
      todo.push(...importsOf(file));
    } catch {
      // A JSON file or an asset: no imports of its own.
    }
  }
  return new Set([...seen].map((file) => relative(REPO, file)));
}

describe('config keys without the loop (issue 51)', () => {
  it('cloudfn start learns the config keys from src/config/, never from the dev list of services', () => {
    for (const entry of ['src/cli/start.ts', 'src/start/start-server.ts', 'src/build/project-config.ts']) {
      const seen = reachable(entry);
      expect(seen.has('src/config/config-keys.ts'), entry).toBe(true);
      expect(seen.has('src/local-services.ts'), entry).toBe(false);
    }
  });

  it('has one list of the tooling keys, read by every service that reads one', () => {
    const text = readFileSync(join(REPO, 'src/config/config-keys.ts'), 'utf8');
    for (const key of ['serviceId', 'innerCall', 'components', 'liveData', 'devUser', 'checkRequests'])
      expect(text).toContain(`'${key}'`);
    // Nowhere else declares a config key as a literal list.
    const declaring = sourceFiles(join(REPO, 'src'))
      .filter((file) => /configKeys:\s*\[/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(REPO, file));
    expect(declaring).toEqual([]);
  });
});

/** The files under `dirs` (relative to the repository, any kind of text) whose text matches `pattern`. */
function textMatching(dirs: readonly string[], pattern: RegExp): string[] {
  return dirs
    .flatMap((dir) => everyFile(join(REPO, dir)))
    .filter((file) => pattern.test(readFileSync(file, 'utf8')))
    .map((file) => relative(REPO, file))
    .sort();
}

function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? everyFile(path) : [path];
  });
}

// Each "Done means" line of issue 51, read as a grep reads it: comments count.
describe('the Done means of issue 51, one test each', () => {
  it('assigns req.url in no file of src/; spells /_cloudfn in one module of src/ beside the page API', () => {
    expect(textMatching(['src'], /\breq\.url\s*=[^=]/)).toEqual([]);
    // The console page's own API file (a browser module: it cannot import the constant) and the
    // page it serves; every other file names the constant (CLOUDFN_PREFIX) or the route.
    expect(textMatching(['src'], /\/_cloudfn/)).toEqual([
      'src/dev/console/page/api.ts',
      'src/dev/console/page/index.html',
    ]);
  });

  it("spells Symbol.for('cloudfn. nowhere; the removed variables and memory: on one line of src/, naming the hosts", () => {
    expect(textMatching(['src', 'runtime'], /Symbol\.for\('cloudfn\./)).toEqual([]);
    const lines = everyFile(join(REPO, 'src')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /CLOUDFN_WS_PUSH_URL|CLOUDFN_LIVE_URL|memory:/.test(line))
        .map((line) => `${relative(REPO, file)}: ${line.trim()}`),
    );
    expect(lines).toEqual([
      'src/platform/services/service.ts: const RETIRED_VARIABLES = { CLOUDFN_WS_PUSH_URL: PUSH_HOST, CLOUDFN_LIVE_URL: LIVE_HOST };',
    ]);
  });

  it('calls interceptIntranet( from one file; new App( and createHttpServer( only in runtime/serve/ and invoke', () => {
    const calling = textMatching(['src', 'runtime'], /\binterceptIntranet\(/).filter(
      (file) => !/\bfunction interceptIntranet\(/.test(readFileSync(join(REPO, file), 'utf8')),
    );
    expect(calling).toEqual(['runtime/intranet/host-table.ts']);
    // Its definition calls nothing.
    const defining = readFileSync(join(REPO, 'runtime/intranet/intercept.ts'), 'utf8');
    expect(defining.match(/\binterceptIntranet\(/g)).toHaveLength(1);
    const outside = (file: string) => !file.startsWith('runtime/serve/') && file !== 'src/testing/invoke.ts';
    expect(textMatching(['src', 'runtime'], /\bnew App\(/).filter(outside)).toEqual([]);
    expect(textMatching(['src', 'runtime'], /\bcreateHttpServer\(/).filter(outside)).toEqual([]);
  });
});
