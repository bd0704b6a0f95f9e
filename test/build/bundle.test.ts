import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, checkBundle, formatBuildTable, type BuildResult } from '../../src/build/index.js';
import { tempProject } from '../testing/project.js';
import { spawnServer } from './spawn-server.js';

const project = tempProject({
  'functions/hello.ts': `import { HttpError, type Handler } from 'cloudfn';
import { shout } from './_lib/shout.js';
const hello: Handler<{ name?: string; fail?: string }> = (params, service) => {
  if (params.fail) throw new HttpError(418, 'short and stout');
  service.log({ greeted: params.name ?? 'world' });
  return { hello: shout(params.name ?? 'world'), path: service.path, fn: service.functionName };
};
export default hello;`,
  'functions/_lib/shout.ts': `export const shout = (text: string): string => text.toUpperCase();`,
  'functions/videos/get.ts': `import { digest } from 'fake-dep';
export default (_params: unknown, service: { routeParams: Record<string, string> }) => ({ vid: service.routeParams.vid, digest: digest(service.routeParams.vid ?? '') });`,
  'functions/crash.ts': `export default () => {
  const value: { deep?: { field: string } } = {};
  return value.deep!.field;
};`,
  'functions/upload.cjs': `module.exports = async (params) => ({ size: Buffer.isBuffer(params) ? params.length : JSON.stringify(params).length });`,
  'node_modules/fake-dep/package.json': JSON.stringify({ name: 'fake-dep', version: '1.0.0', main: 'index.js' }),
  'node_modules/fake-dep/index.js': `const { createHash } = require('node:crypto');
const here = __dirname;
exports.digest = (text) => createHash('sha256').update(text).digest('hex').slice(0, 8) + (typeof here === 'string' ? '' : '!');`,
  'cloudfn.config.json': JSON.stringify({
    routes: { '/v/:vid': 'videos/get' },
    limits: { maxBodySize: 64 },
    functions: { upload: { maxBodySize: 16 } },
  }),
});
let result: BuildResult;

beforeAll(async () => {
  result = await buildProject(project.root, { perFunction: true });
}, 60_000);
afterAll(() => project.remove());

describe('cloudfn build', () => {
  it('writes one bundle per function, server.mjs, source maps and a manifest', () => {
    const dist = join(project.root, 'dist');
    for (const name of ['hello', 'videos/get', 'crash', 'upload']) {
      expect(existsSync(join(dist, name, 'index.mjs')), name).toBe(true);
      expect(existsSync(join(dist, name, 'index.mjs.map')), name).toBe(true);
    }
    expect(existsSync(join(dist, 'server.mjs'))).toBe(true);
    expect(existsSync(join(dist, 'server.mjs.map'))).toBe(true);
    expect(readFileSync(join(dist, 'hello/index.mjs'), 'utf8')).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
    const manifest = JSON.parse(readFileSync(join(dist, 'cloudfn-build.json'), 'utf8')) as {
      functions: string[];
      files: string[];
    };
    expect(manifest.functions).toEqual(['crash', 'hello', 'upload', 'videos/get']);
    // _chunks: what server.mjs loads when first needed (each function folder has its own).
    expect(manifest.files.sort()).toEqual(
      ['_chunks', 'crash', 'hello', 'server.mjs', 'server.mjs.map', 'upload', 'videos'].sort(),
    );
  });

  it('reports the size, gzip size and time of every bundle, and prints them as a table', () => {
    expect(result.bundles.map((b) => b.name).sort()).toEqual(['crash', 'hello', 'server.mjs', 'upload', 'videos/get']);
    for (const b of result.bundles) {
      // What loads at start: the entry and the chunks it imports with a static import, a bare
      // `import "./_chunks/…"` (a chunk kept for its side effects) included.
      const imported = [...readFileSync(b.file, 'utf8').matchAll(/(?:from|import)\s*"\.\/(_chunks\/[^"]+\.mjs)"/g)].map(
        (m) => join(dirname(b.file), m[1]!),
      );
      const code = Buffer.concat([b.file, ...imported].map((file) => readFileSync(file)));
      expect(b.chunks).toEqual(expect.arrayContaining(imported));
      expect(b.lazyBytes).toBeGreaterThan(0);
      expect(b.bytes).toBe(code.length);
      expect(b.gzipBytes).toBe(gzipSync(code).length);
      expect(b.gzipBytes).toBeLessThan(b.bytes);
      expect(b.ms).toBeGreaterThanOrEqual(0);
    }
    const table = formatBuildTable(result).split('\n');
    expect(table[0]).toMatch(/^function\s+size\s+gzip\s+lazy\s+time$/);
    const hello = result.bundles.find((b) => b.name === 'hello')!;
    expect(table.find((line) => line.startsWith('hello '))).toMatch(
      new RegExp(
        `^hello\\s+${(hello.bytes / 1000).toFixed(1)} kB\\s+${(hello.gzipBytes / 1000).toFixed(1)} kB\\s+${(hello.lazyBytes / 1000).toFixed(1)} kB\\s+${hello.ms} ms$`,
      ),
    );
  });

  it('bundles the runtime, the function, its helpers and its dependencies: its folder runs alone', async () => {
    const alone = mkdtempSync(join(tmpdir(), 'cloudfn-alone-'));
    try {
      cpSync(join(project.root, 'dist/videos/get'), alone, { recursive: true });
      const server = await spawnServer(['index.mjs'], { cwd: alone });
      const res = await fetch(`${server.url}/anything`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ digest: expect.stringMatching(/^[0-9a-f]{8}$/) });
      expect(await server.stop()).toBe(0);
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it('serves a single function at every path on PORT, with the health path answered first', async () => {
    const server = await spawnServer(['dist/hello/index.mjs'], { cwd: project.root });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      for (const path of ['/', '/hello', '/some/deep/path']) {
        const res = await fetch(`${server.url}${path}?name=ada`);
        expect(await res.json()).toEqual({ hello: 'ADA', path, fn: 'hello' });
      }
      const teapot = await fetch(`${server.url}/?fail=1`);
      expect(teapot.status).toBe(418);
      expect(await teapot.json()).toMatchObject({ error: { code: 'CLOUDFN_HTTP_ERROR', message: 'short and stout' } });
      const health = await fetch(`${server.url}/_cloudfn/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', inflight: 0 });
      // Probes are not request lines.
      expect(server.stdout()).not.toContain('/_cloudfn/health');
      expect(server.stdout()).toContain('"msg":"GET /some/deep/path 200');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('serves all functions by route from server.mjs, with the config baked in and env vars over it', async () => {
    const server = await spawnServer(['dist/server.mjs'], { cwd: project.root });
    try {
      expect(await (await fetch(`${server.url}/v/v42`)).json()).toMatchObject({ vid: 'v42' });
      expect(await (await fetch(`${server.url}/hello?name=x`)).json()).toEqual({
        hello: 'X',
        path: '/hello',
        fn: 'hello',
      });
      expect((await fetch(`${server.url}/nothing-here`)).status).toBe(404);
      // limits.maxBodySize 64 globally, functions.upload.maxBodySize 16.
      expect((await fetch(`${server.url}/hello`, { method: 'POST', body: 'x'.repeat(100) })).status).toBe(413);
      expect((await fetch(`${server.url}/upload`, { method: 'POST', body: 'x'.repeat(20) })).status).toBe(413);
      expect(await (await fetch(`${server.url}/upload`, { method: 'POST', body: Buffer.alloc(10) })).json()).toEqual({
        size: 10,
      });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const raised = await spawnServer(['dist/server.mjs'], {
      cwd: project.root,
      env: { CLOUDFN_MAX_BODY_SIZE: '1000' },
    });
    try {
      expect((await fetch(`${raised.url}/hello`, { method: 'POST', body: 'x'.repeat(100) })).status).toBe(200);
    } finally {
      await raised.stop();
    }
  });

  it('maps stack traces to the TypeScript lines with node --enable-source-maps', async () => {
    const server = await spawnServer(['--enable-source-maps', 'dist/crash/index.mjs'], { cwd: project.root });
    try {
      expect((await fetch(server.url)).status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await server.stop();
    }
    const line = server
      .stdout()
      .split('\n')
      .find((l) => l.includes('the function failed'))!;
    expect((JSON.parse(line) as { stack: string }).stack).toMatch(/functions\/crash\.ts:3:\d+/);
  });

  it('passes --check: every bundle starts, answers its health path and exits 0 on SIGTERM', async () => {
    const checks = await Promise.all(result.bundles.map((b) => checkBundle(b.file, { chunks: b.chunks })));
    expect(checks.map((c) => [c.ok, c.problem])).toEqual(result.bundles.map(() => [true, undefined]));
  });
});

describe('cloudfn build: options and failures', () => {
  it('minifies with minify, and writes no maps without sourcemap', async () => {
    const small = tempProject({ 'functions/a.ts': 'export default () => ({ a: 1 });' });
    try {
      const plain = await buildProject(small.root, { outdir: 'plain', server: false, perFunction: true });
      const tight = await buildProject(small.root, {
        outdir: 'tight',
        minify: true,
        sourcemap: false,
        server: false,
        perFunction: true,
      });
      expect(tight.bundles[0]!.bytes).toBeLessThan(plain.bundles[0]!.bytes * 0.7);
      expect(existsSync(join(small.root, 'tight/a/index.mjs.map'))).toBe(false);
      expect(existsSync(join(small.root, 'tight/server.mjs'))).toBe(false);
      expect(existsSync(join(small.root, 'plain/a/index.mjs.map'))).toBe(true);
    } finally {
      small.remove();
    }
  });

  it('removes the outputs of the previous build, and refuses a folder it did not write', async () => {
    const p = tempProject({
      'functions/a.ts': 'export default () => 1;',
      'functions/b.ts': 'export default () => 2;',
      'other/keep.txt': 'mine',
    });
    try {
      await buildProject(p.root, { perFunction: true });
      rmSync(join(p.root, 'functions/b.ts'));
      await buildProject(p.root, { perFunction: true });
      expect(readdirSync(join(p.root, 'dist')).sort()).toEqual([
        '_chunks',
        'a',
        'cloudfn-build.json',
        'server.mjs',
        'server.mjs.map',
      ]);
      await expect(buildProject(p.root, { outdir: 'other' })).rejects.toThrow(
        /other: exists and holds keep\.txt, which cloudfn build did not write \(no cloudfn-build\.json lists them\); remove them or pass another --outdir/,
      );
      expect(readFileSync(join(p.root, 'other/keep.txt'), 'utf8')).toBe('mine');
    } finally {
      p.remove();
    }
  });

  it('fails without a default export with the one-line message of start-up, before writing anything', async () => {
    const p = tempProject({
      'functions/ok.ts': 'export default () => 1;',
      'functions/nodefault.ts': 'export const handler = () => 1;',
    });
    try {
      await expect(buildProject(p.root)).rejects.toThrow(
        /^functions\/nodefault\.ts has no default export: export default async function \(params, service\) \{ \.\.\. \} \(or module\.exports = async \(params, service\) => \{ \.\.\. \}\)$/,
      );
      expect(existsSync(join(p.root, 'dist'))).toBe(false);
    } finally {
      p.remove();
    }
  });

  it('fails for a CommonJS function with only named exports, and passes one that sets module.exports', async () => {
    const p = tempProject({
      'functions/ok.cjs': '// module.exports.x = 1 in a comment does not count\nmodule.exports = async () => 1;',
      'functions/legacy.cjs':
        '// module.exports = async () => 1;\nexports.handler = async () => 1;\nmodule.exports.other = 2;',
    });
    try {
      await expect(buildProject(p.root)).rejects.toThrow(/^functions\/legacy\.cjs has no default export: /);
      expect(existsSync(join(p.root, 'dist'))).toBe(false);
      rmSync(join(p.root, 'functions/legacy.cjs'));
      await buildProject(p.root, { perFunction: true });
      expect(existsSync(join(p.root, 'dist/ok/index.mjs'))).toBe(true);
    } finally {
      p.remove();
    }
  });

  it('fails on a compile error with file:line:column and a code frame', async () => {
    const p = tempProject({ 'functions/broken.ts': 'export default () => {\n  return 1 +;\n};' });
    try {
      await expect(buildProject(p.root)).rejects.toThrow(
        /functions\/broken\.ts:2:\d+: Unexpected ";"\n\s+2 \|\s+return 1 \+;/,
      );
    } finally {
      p.remove();
    }
  });

  it('fails on a route to a function that does not exist, as start-up does', async () => {
    const p = tempProject({
      'functions/a.ts': 'export default () => 1;',
      'cloudfn.config.json': JSON.stringify({ routes: { '/x/:id': 'missing' } }),
    });
    try {
      await expect(buildProject(p.root)).rejects.toThrow(
        'cloudfn.config routes "/x/:id": no function is named "missing" (functions: a)',
      );
    } finally {
      p.remove();
    }
  });

  it('leaves native packages external with a warning naming the package, and the bundle loads them from node_modules', async () => {
    const p = tempProject({
      'functions/img.ts': `import { resize } from 'fake-native';\nexport default () => ({ resized: resize(2) });`,
      'functions/addon.ts': `import { version } from 'fake-addon';\nexport default () => ({ version });`,
      // Recognised by its manifest: binding.gyp (or gypfile, or a dependency on bindings).
      'node_modules/fake-native/package.json': JSON.stringify({
        name: 'fake-native',
        version: '1.0.0',
        main: 'index.js',
      }),
      'node_modules/fake-native/binding.gyp': '{ "targets": [] }',
      'node_modules/fake-native/index.js': `exports.resize = (n) => n * 10;`,
      // Recognised only when esbuild meets its .node file.
      'node_modules/fake-addon/package.json': JSON.stringify({
        name: 'fake-addon',
        version: '2.0.0',
        main: 'index.js',
      }),
      'node_modules/fake-addon/index.js': `let addon; try { addon = require('./build/Release/addon.node'); } catch { addon = { version: 'js fallback' }; }\nmodule.exports = addon;`,
    });
    try {
      const built = await buildProject(p.root, { perFunction: true });
      expect(built.warnings.sort()).toEqual([
        'package fake-addon has a native addon (.node), which cannot be bundled; it is left external: install it where the bundle runs (npm install fake-addon)',
        'package fake-native has a native addon (.node), which cannot be bundled; it is left external: install it where the bundle runs (npm install fake-native)',
      ]);
      const img = readFileSync(join(p.root, 'dist/img/index.mjs'), 'utf8');
      expect(img).toMatch(/__require\("fake-native"\)/);
      expect(img).not.toContain('n * 10');
      const addon = readFileSync(join(p.root, 'dist/addon/index.mjs'), 'utf8');
      expect(addon).toMatch(/__require\("fake-addon"\)/);
      expect(addon).not.toContain('js fallback');
      const server = await spawnServer(['dist/server.mjs'], { cwd: p.root });
      try {
        expect(await (await fetch(`${server.url}/img`)).json()).toEqual({ resized: 20 });
        expect(await (await fetch(`${server.url}/addon`)).json()).toEqual({ version: 'js fallback' });
      } finally {
        await server.stop();
      }
    } finally {
      p.remove();
    }
  });

  it('--check reports a bundle that fails at start-up with what it printed', async () => {
    const p = tempProject({ 'functions/bad.ts': `throw new Error('missing DATABASE_URL');\nexport default () => 1;` });
    try {
      const built = await buildProject(p.root, { server: false, perFunction: true });
      const check = await checkBundle(built.bundles[0]!.file, { chunks: built.bundles[0]!.chunks });
      expect(check.ok).toBe(false);
      expect(check.problem).toMatch(/exited \(code 1\) before serving: .*missing DATABASE_URL/);
    } finally {
      p.remove();
    }
  });

  it('keeps the user’s own top-level require and __dirname apart from the ones bundled CommonJS needs', async () => {
    const p = tempProject({
      'functions/own.mjs': `import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
const require = createRequire(import.meta.url);
const __dirname = dirname(fileURLToPath(import.meta.url));
export default () => ({ os: typeof require('node:os').platform(), dir: __dirname });`,
    });
    try {
      await buildProject(p.root, { server: false, perFunction: true });
      const server = await spawnServer(['dist/own/index.mjs'], { cwd: p.root });
      try {
        expect(await (await fetch(server.url)).json()).toEqual({ os: 'string', dir: join(p.root, 'dist/own') });
      } finally {
        await server.stop();
      }
    } finally {
      p.remove();
    }
  });
});
