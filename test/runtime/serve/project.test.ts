/** Finding, loading and configuring functions from a project folder. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../runtime/serve/config-file.js';
import { discoverFunctions } from '../../../runtime/serve/discover.js';
import { functionFromModule, loadFunction, validateConfig } from '../../../runtime/serve/load.js';
import { loadRoutePatterns, Router } from '../../../runtime/request/router.js';
import { loadProjectFunctions, startProject } from '../../../runtime/serve/start.js';
import { createCompileHook } from '../../../src/build/compile.js';

const fixture = new URL('../../fixtures/project/', import.meta.url).pathname;
const temps: string[] = [];
function temp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-project-'));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  rmSync(join(fixture, '.cloudfn'), { recursive: true, force: true });
});

describe('discoverFunctions', () => {
  it('names functions by their path and skips helpers and tests', () => {
    expect(discoverFunctions(fixture).map((f) => f.name)).toEqual([
      'hello',
      'legacy',
      'nested',
      'videos/get',
      'videos/list',
    ]);
  });

  it('refuses two files with the same name, naming both', () => {
    const dir = temp({ 'functions/a.ts': '', 'functions/a/index.js': '' });
    expect(() => discoverFunctions(dir)).toThrow(/function "a" is also defined by functions\/a/);
  });

  it('says how to start when there is no functions folder', () => {
    expect(() => discoverFunctions(temp({}))).toThrow(/there is no functions folder; create functions\/hello.ts/);
  });
});

describe('a cloudfn.config.json with a syntax error', () => {
  it('is reported at file:line:column with a code frame', async () => {
    const text = '{\n  "timeout": 5000,\n  "limits": { "maxBodySize": 1024, },\n}\n';
    await expect(loadConfigFile(temp({ 'cloudfn.config.json': text }))).rejects.toThrow(
      'cloudfn.config.json:3:36: is not valid JSON: unexpected "}" (JSON allows no comma before a closing bracket)\n' +
        '  3 |   "limits": { "maxBodySize": 1024, },\n' +
        '    |                                    ^',
    );
    await expect(
      loadConfigFile(temp({ 'cloudfn.config.json': '{\n  // the port\n  "port": 3000\n}' })),
    ).rejects.toThrow(
      /^cloudfn.config.json:2:3: is not valid JSON: unexpected "\/" \(JSON has no comments; use cloudfn.config.mjs for them\)\n {2}2 \| {3}\/\/ the port\n {4}\| {3}\^$/,
    );
  });
});

describe('functions in cloudfn.config', () => {
  it('stops start-up when it names a function the project does not have, listing the real ones', async () => {
    const dir = temp({
      'functions/hello.mjs': 'export default () => 1;',
      'functions/upload.mjs': 'export default () => 2;',
      'cloudfn.config.json': '{ "functions": { "helo": { "timeout": 5 } } }',
    });
    await expect(
      startProject(dir, { flags: { port: '0', host: '127.0.0.1' }, handleSignals: false, keepServing: false }),
    ).rejects.toThrow(
      'cloudfn.config.json: functions.helo names no function of this project (the functions are hello, upload); use a name from functions/, e.g. functions/videos/list.ts is "videos/list"',
    );
  });
});

describe('loading', () => {
  it('loads TypeScript, ESM and CommonJS with their configs', async () => {
    const specs = await loadProjectFunctions(fixture, createCompileHook(fixture));
    const byName = Object.fromEntries(specs.map((s) => [s.name, s]));
    expect(byName['hello']?.config).toEqual({ timeout: 5000 });
    expect(await byName['legacy']!.handler({}, { log() {}, httpMethod: 'GET' } as never)).toEqual({
      style: 'commonjs',
      method: 'GET',
    });
    expect(byName['videos/list']!.handler({ page: '2' }, {} as never)).toEqual({ page: 2 });
  });

  it('stops with one line when the default export is missing', async () => {
    const dir = temp({ 'functions/bad.mjs': 'export const handler = () => 1;' });
    await expect(loadFunction(join(dir, 'functions/bad.mjs'), 'bad', 'functions/bad.mjs')).rejects.toThrow(
      'functions/bad.mjs has no default export: export default async function (params, service) { ... } (or module.exports = async (params, service) => { ... })',
    );
  });

  it('accepts module.exports, exports.default and export default', () => {
    const fn = () => 1;
    expect(functionFromModule({ default: fn }, 'a', 'a.js').handler).toBe(fn);
    expect(functionFromModule({ default: { default: fn } }, 'a', 'a.js').handler).toBe(fn);
    expect(() => functionFromModule({ default: { __esModule: true, main: fn } }, 'a', 'a.js')).toThrow(
      /no default export/,
    );
    // exports.main of a WeChat cloud function gets its own message (platform-layout.test.ts).
    expect(() => functionFromModule({ default: { main: fn } }, 'a', 'a.js')).toThrow(/WeChat cloud function/);
    expect(() => functionFromModule({ default: { handler: fn } }, 'a', 'a.js')).toThrow(
      'a.js: its default export (or module.exports) is an object with keys handler, not a function',
    );
  });

  it('says what a default export that is not a function is, and how to fix it', async () => {
    const dir = temp({
      'functions/obj.ts': "export default { hello: 'world' };\n",
      'functions/text.mjs': "export default 'hi';\n",
    });
    await expect(
      loadFunction(join(dir, 'functions/obj.ts'), 'obj', 'functions/obj.ts', createCompileHook(dir)),
    ).rejects.toThrow(
      'functions/obj.ts: its default export (or module.exports) is an object with keys hello, not a function: export default async function (params, service) { return ...; }',
    );
    await expect(loadFunction(join(dir, 'functions/text.mjs'), 'text', 'functions/text.mjs')).rejects.toThrow(
      /is the string "hi", not a function/,
    );
    expect(() => functionFromModule({ default: null }, 'a', 'a.js')).toThrow(/is null, not a function/);
  });

  it('reports a compile error with file, line, column and a code frame', async () => {
    const dir = temp({ 'functions/broken.ts': 'export default async (p: string => 1\n' });
    await expect(loadProjectFunctions(dir, createCompileHook(dir))).rejects.toThrow(
      /functions\/broken\.ts:1:\d+: Expected "\)" but found "=>"\n\s+1 \| export default/,
    );
  });

  it('refuses TypeScript without a compile hook, saying what to run', async () => {
    await expect(loadFunction(join(fixture, 'functions/hello.ts'), 'hello', 'functions/hello.ts')).rejects.toThrow(
      /run it with cloudfn start or cloudfn dev/,
    );
  });

  it.each([
    [{ timeot: 5 }, /config.timeot is not an option; the options are timeout, schedule, client, maxBodySize/],
    [{ timeout: '5s' }, /config.timeout must be a whole number of milliseconds, got "5s"/],
    [{ maxBodySize: -1 }, /config.maxBodySize must be a whole number of bytes, got -1/],
    [[1], /config must be an object/],
    [{ client: 'inner' }, /config.client must be true, false or 'inner-call' .*, got "inner"/],
  ])('validates config %j', (config, message) => {
    expect(() => validateConfig(config, 'functions/x.ts')).toThrow(message);
  });

  it("accepts config.client 'inner-call' (a function only the app's other services call)", () => {
    expect(validateConfig({ client: 'inner-call' }, 'functions/x.ts')).toEqual({ client: 'inner-call' });
  });
});

describe('cloudfn.config', () => {
  it('reads routes and per-function options', async () => {
    const config = await loadConfigFile(fixture);
    expect(config.routes).toEqual({ '/v/:vid': 'videos/get' });
    expect(config.functions).toEqual({ 'videos/list': { maxBodySize: 1024 } });
  });

  it('refuses unknown keys and bad routes', async () => {
    await expect(loadConfigFile(temp({ 'cloudfn.config.json': '{"rootes":{}}' }))).rejects.toThrow(
      /rootes is not an option/,
    );
    await expect(loadConfigFile(temp({ 'cloudfn.config.json': '{"routes":' }))).rejects.toThrow(
      /^cloudfn.config.json:1:11: is not valid JSON: unexpected end of file\n/,
    );
    await expect(
      loadConfigFile(temp({ 'cloudfn.config.mjs': 'export default { functions: { a: { timeout: 0 } } }' })),
    ).rejects.toThrow(/functions.a: config.timeout must be a whole number/);
  });
});

describe('Router', () => {
  const fn = (name: string) => ({ name, file: name, handler: () => name, config: {}, limits: {} as never, timeout: 1 });
  beforeAll(() => loadRoutePatterns({ '/v/:vid': 'videos/get' }));
  it('matches custom routes, then the longest function name', () => {
    const router = new Router([fn('videos'), fn('videos/get'), fn('index')], {
      '/v/:vid': 'videos/get',
      '/files/*rest': 'videos',
    });
    expect(router.match('/v/abc', '/v/abc')).toMatchObject({ fn: { name: 'videos/get' }, params: { vid: 'abc' } });
    expect(router.match('/files/a/b', '/files/a/b')?.params).toEqual({ rest: ['a', 'b'] });
    expect(router.match('/videos/get/x', '/videos/get/x')?.fn.name).toBe('videos/get');
    expect(router.match('/videos/', '/videos/')?.fn.name).toBe('videos');
    expect(router.match('/', '/')?.fn.name).toBe('index');
    expect(router.match('/other', '/other')).toBeUndefined();
  });

  it('refuses a route to a missing function and a bad pattern', () => {
    expect(() => new Router([fn('a')], { '/x': 'b' }).check()).toThrow(/no function is named "b" \(functions: a\)/);
    expect(() => new Router([fn('a')], { '/x/:': 'a' })).toThrow(/cloudfn.config routes "\/x\/:"/);
  });
});
