/**
 * The "Done means" of issue 51 (stand-ins answer by the routes and hosts they declare), read
 * from the sources: what `cloudfn start` imports to learn the config keys, and where the
 * stand-ins' mechanisms may appear.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { beforeHookNames } from '../../runtime/serve/http-server.js';
import { inServiceOrder, SERVICE_ORDER_VAR } from '../../src/dev/dev-options.js';
import { startDevServer } from '../../src/dev/index.js';
import { LOCAL_SERVICES } from '../../src/local-services.js';

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
      "src/platform/services/service.ts: const RETIRED_VARIABLES = { CLOUDFN_WS_PUSH_URL: 'ws-push.dyc.ivolces.com', CLOUDFN_LIVE_URL: 'webcast.bytedance.com' };",
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

  it('runs at most 4 hooks before routing in the dev server: health, ping, metrics, the dispatcher', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cloudfn-structure-'));
    cpSync(join(REPO, 'test/fixtures/dev-project'), root, { recursive: true });
    const dev = await startDevServer({
      ...{ root, port: 0, typecheck: false, services: [...LOCAL_SERVICES].reverse() },
      sink: { write: () => undefined },
    });
    try {
      const names = beforeHookNames(dev.app);
      expect(names.length).toBeLessThanOrEqual(4);
      expect(names.filter((name) => name !== 'health')).toEqual(
        names.includes('metricsPath') ? ['metricsPath', 'dispatch'] : ['dispatch'],
      );
    } finally {
      await dev.close();
      rmSync(root, { recursive: true, force: true });
    }
    // The pin the dev suite keeps too.
    expect(readFileSync(join(REPO, 'test/dev/dispatch.test.ts'), 'utf8')).toContain('toBeLessThanOrEqual(4)');
  });

  it('runs the gateway, live, services and local-service suites with the service list reversed', () => {
    const scripts = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const script = scripts['test:reversed'] ?? '';
    expect(script).toContain(`${SERVICE_ORDER_VAR}=reversed vitest run`);
    const filters = script
      .split(' vitest run ')[1]!
      .split(' ')
      .filter((word) => word.startsWith('test/') && !word.endsWith('.config.ts'));
    const tests = everyFile(join(REPO, 'test'))
      .map((file) => relative(REPO, file))
      .filter((file) => file.endsWith('.test.ts'));
    // Every suite of those services is run by a filter, and every filter runs one.
    const suites = tests.filter((file) =>
      /^test\/(dev|platform|testing)\/(.*\/)?(ws-|live-|local-service|services-|gateway|services\.|dispatch)/.test(
        file,
      ),
    );
    expect(suites.length).toBeGreaterThan(15);
    for (const suite of suites)
      expect(
        filters.some((filter) => suite.includes(filter)),
        suite,
      ).toBe(true);
    for (const filter of filters)
      expect(
        tests.some((file) => file.includes(filter)),
        filter,
      ).toBe(true);
    // And the variable reverses the list the dev server starts.
    const reversed = inServiceOrder(LOCAL_SERVICES, { [SERVICE_ORDER_VAR]: 'reversed' });
    expect(reversed.map((service) => service.name)).toEqual(LOCAL_SERVICES.map((service) => service.name).reverse());
  });

  it('keeps src/testing/gateway.ts to 200 lines and openGateway to 60', () => {
    const text = readFileSync(join(REPO, 'src/testing/gateway.ts'), 'utf8');
    expect(text.split('\n').length).toBeLessThanOrEqual(200);
    const lines = text.split('\n');
    const start = lines.findIndex((line) => line.startsWith('export async function openGateway('));
    const end = lines.findIndex((line, at) => at > start && line === '}');
    expect(start).toBeGreaterThan(-1);
    expect(end - start + 1).toBeLessThanOrEqual(60);
  });

  it("draws in docs/architecture.md the extension's shape and the hooks the server runs", () => {
    const doc = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');
    const fields = (text: string, head: RegExp) => {
      const body = text.slice(text.search(head)).split('\n}')[0]!;
      return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??[(:]/gm)].map((match) => match[1]).sort();
    };
    const declared = fields(
      readFileSync(join(REPO, 'runtime/serve/extension.ts'), 'utf8'),
      /export interface Extension \{/,
    );
    expect(declared).toEqual(fields(doc, /\ninterface Extension \{/));
    expect(declared).not.toContain('gate');
    expect(doc).toContain("before hooks: health, ping, metrics, the extensions' dispatcher");
  });
});
