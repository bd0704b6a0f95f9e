/**
 * The "Done means" of issue 51 (stand-ins answer by the routes and hosts they declare), read
 * from the sources: what `cloudfn start` imports to learn the config keys, and where the
 * stand-ins' mechanisms may appear.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
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

/** The text of `file` without its comments (TypeScript's own scanner tells them apart from strings). */
function codeOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let out = '';
  // The brace depth inside each open template substitution: a closing brace at depth 0 goes
  // back into the template, which the scanner reads on when asked.
  const depths: number[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) continue;
    if (kind === ts.SyntaxKind.OpenBraceToken && depths.length > 0) depths[depths.length - 1]!++;
    if (kind === ts.SyntaxKind.CloseBraceToken && depths.length > 0) {
      if (depths[depths.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        depths.pop();
      } else depths[depths.length - 1]!--;
    }
    if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle) depths.push(0);
    out += scanner.getTokenText();
  }
  return out;
}

/** Every module under src/, relative to the repository. */
const SRC_FILES = allFiles(join(REPO, 'src')).map((file) => relative(REPO, file));

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return allFiles(path);
    return /\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('one prefix (issue 51)', () => {
  it('reads code apart from comments (the scanner is not blind)', () => {
    const file = join(REPO, 'src/platform/gateway/names.ts');
    expect(readFileSync(file, 'utf8')).toContain('/_cloudfn');
    expect(codeOf(file)).toContain('PUSH_MOUNT');
    expect(codeOf(join(REPO, 'runtime/options.ts'))).toContain("'/_cloudfn'");
  });

  it("spells /_cloudfn in the code of no module of src/ but the console page's own API file", () => {
    const spelling = SRC_FILES.filter((file) => codeOf(join(REPO, file)).includes('/_cloudfn'));
    expect(spelling).toEqual(['src/dev/console/page/api.ts']);
  });
});

/** The files of `dirs` (relative to the repository) whose code matches `pattern`. */
function codeMatching(dirs: readonly string[], pattern: RegExp): string[] {
  return dirs
    .flatMap((dir) => sourceFiles(join(REPO, dir)))
    .filter((file) => pattern.test(codeOf(file)))
    .map((file) => relative(REPO, file))
    .sort();
}

describe('one dispatcher, one host table, one server (issue 51)', () => {
  it('assigns req.url in no file of src/', () => {
    expect(codeMatching(['src'], /\breq\.url\s*=[^=]/)).toEqual([]);
  });

  it("spells Symbol.for('cloudfn. nowhere in src/ or runtime/", () => {
    const all = [...sourceFiles(join(REPO, 'src')), ...sourceFiles(join(REPO, 'runtime'))];
    expect(
      all.filter((file) => readFileSync(file, 'utf8').includes("Symbol.for('cloudfn.")).map((f) => relative(REPO, f)),
    ).toEqual([]);
  });

  it('names the removed variables only on the lines that name the plain host, and memory: nowhere', () => {
    const lines = sourceFiles(join(REPO, 'src')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /CLOUDFN_WS_PUSH_URL|CLOUDFN_LIVE_URL|memory:/.test(line))
        .map((line) => `${relative(REPO, file)}: ${line.trim()}`),
    );
    expect(lines).toEqual([
      "src/platform/services/service.ts: CLOUDFN_WS_PUSH_URL: 'http://ws-push.dyc.ivolces.com',",
      "src/platform/services/service.ts: CLOUDFN_LIVE_URL: 'https://webcast.bytedance.com',",
    ]);
  });

  it('calls interceptIntranet( from one file: the host table', () => {
    expect(codeMatching(['src', 'runtime'], /\binterceptIntranet\(/)).toEqual([
      'runtime/intranet/host-table.ts',
      // Its definition.
      'runtime/intranet/intercept.ts',
    ]);
  });

  it('makes an App and an http server only in runtime/serve/ and src/testing/invoke.ts', () => {
    const outside = (file: string) => !file.startsWith('runtime/serve/') && file !== 'src/testing/invoke.ts';
    expect(codeMatching(['src', 'runtime'], /\bnew App\(/).filter(outside)).toEqual(['runtime/app.ts']);
    expect(codeMatching(['src', 'runtime'], /\bcreateHttpServer\(/).filter(outside)).toEqual([]);
  });
});
