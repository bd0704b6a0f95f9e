/**
 * The globals user code expects, in files built for the function service and run under a real
 * Node 14 (issue 53): `fetch` and its classes provided to the files that use them (JSON and text
 * bodies, status, headers, redirects, an `AbortSignal` timeout and abort, against a real
 * server, and the docs' inner-call example under `--check`), the smaller Node 15+ APIs provided
 * to every file, and a global cloudfn does not provide refused at build time with the file, the
 * line and the fix.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildFunctionService,
  checkFunctionService,
  findCheckNode,
  type FunctionServiceBuildResult,
  ImitationRunner,
} from '../../src/build/function-service/index.js';
import { checkPlatform } from '../../src/platform/services/check-setup.js';
import { tempProject } from '../testing/project.js';

const node = findCheckNode(process.cwd());
if (!node.platformVersion && process.env.CI === 'true')
  throw new Error('Node 14 is missing under CI: run node test/setup/node14.mjs');

let server: Server;
let base: string;
const project = tempProject({
  'cloudfn.config.json': JSON.stringify({ serviceId: 'game', innerCall: ['rank'] }),
  'functions/web.ts': `export default async () => {
  const base = process.env.TARGET_URL;
  const json = await fetch(base + '/json', { headers: { 'x-asked': 'yes' } });
  const posted = await fetch(base + '/echo', { method: 'POST', body: JSON.stringify({ n: 1 }), headers: new Headers({ 'content-type': 'application/json' }) });
  const missing = await fetch(base + '/missing');
  const moved = await fetch(base + '/moved');
  const zipped = await fetch(base + '/gzip');
  let timeout = 'none';
  try { await fetch(base + '/slow', { signal: AbortSignal.timeout(200) }); } catch (error) { timeout = (error as Error).name; }
  const controller = new AbortController();
  const aborted = fetch(base + '/slow', { signal: controller.signal }).catch((error: Error) => error.name);
  controller.abort();
  let refused = 'none';
  try { await fetch('http://127.0.0.1:1/'); } catch (error) { refused = (error as Error).name + ': ' + (error as Error).message; }
  const made = new Response(JSON.stringify({ made: true }), { status: 201, headers: { 'content-type': 'application/json' } });
  return {
    json: await json.json(), jsonStatus: json.status, type: json.headers.get('content-type'),
    posted: await posted.text(),
    missing: [missing.status, missing.ok, await missing.text()],
    moved: [moved.status, moved.redirected, moved.url.replace(base, ''), await moved.text()],
    zipped: await zipped.text(),
    timeout, aborted: await aborted, refused,
    made: [made.status, await made.json()],
    request: new Request(base + '/x', { method: 'post' }).method,
    blob: await new Blob(['a', 'b']).text(),
    form: new FormData() instanceof FormData,
  };
};`,
  'functions/plain.ts': 'export default () => ({ plain: true });',
  'functions/newer.ts': `export default () => ({
  clone: structuredClone({ a: [1, { b: new Date(0) }] }),
  at: [1, 2, 3].at(-1), strAt: 'abc'.at(-1),
  replaced: 'a.b.c'.replaceAll('.', '$&-'),
  last: [1, 2, 3, 4].findLast((n) => n % 2 === 1), lastIndex: [1, 2, 3].findLastIndex((n) => n > 5),
  own: Object.hasOwn({ x: 1 }, 'x'),
  now: typeof performance.now(),
});`,
  // The docs' example of a call between services (docs/services.md), with fetch.
  'functions/ranked.ts': `export default async () => {
  const res = await fetch(\`http://\${process.env.SERVICE_ID}-rank.inner-call.dyc.ivolces.com/top?n=2\`);
  return { status: res.status, top: await res.json() };
};`,
});
let result: FunctionServiceBuildResult;
const runner = new ImitationRunner(node);

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ hello: 'json', asked: req.headers['x-asked'] }));
    } else if (url === '/echo') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.end(`${req.method} ${req.headers['content-type']} ${body}`));
    } else if (url === '/moved') {
      res.writeHead(302, { location: '/final' }).end();
    } else if (url === '/final') {
      res.end('arrived');
    } else if (url === '/gzip') {
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('unzipped'));
    } else if (url === '/slow') {
      setTimeout(() => res.end('late'), 5000).unref();
    } else if (url.startsWith('/top')) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(['ada', 'bob']));
    } else res.writeHead(404).end('no such page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  result = await buildFunctionService(project.root);
}, 120_000);
afterAll(() => {
  server.closeAllConnections();
  server.close();
  runner.close();
  project.remove();
});

describe('the files written', () => {
  it('gives fetch and its classes only to the files that use them', () => {
    expect(result.fetchGlobals).toEqual(['functions/ranked.ts', 'functions/web.ts']);
    const web = readFileSync(join(result.outdir, 'web.js'), 'utf8');
    const plain = readFileSync(join(result.outdir, 'plain.js'), 'utf8');
    expect(web).toContain('fallbackFetch');
    expect(plain).not.toContain('fallbackFetch');
    const size = (path: string): string => {
      const code = readFileSync(join(result.outdir, path));
      return `${code.length} B (${gzipSync(code).length} B gzip)`;
    };
    // What fetch costs a file, printed for docs/decisions.md.
    console.log(`fetch for Node 14: plain.js ${size('plain.js')}, ranked.js ${size('ranked.js')}`);
  });
});

describe.skipIf(!node.platformVersion)('under Node 14', () => {
  it('answers through fetch as a current Node would: JSON, text, status, headers, redirects, timeouts', async () => {
    const out = await runner.run(join(result.outdir, 'web.js'), [{ method: 'GET', url: '/web' }], {
      env: { ...process.env, TARGET_URL: base },
    });
    expect(out.node).toMatch(/^v14\./);
    const answer = out.answers![0]!;
    expect(answer.thrown).toBeUndefined();
    expect(JSON.parse(answer.body)).toEqual({
      json: { hello: 'json', asked: 'yes' },
      jsonStatus: 200,
      type: 'application/json',
      posted: 'POST application/json {"n":1}',
      missing: [404, false, 'no such page'],
      moved: [200, true, '/final', 'arrived'],
      zipped: 'unzipped',
      timeout: 'TimeoutError',
      aborted: 'AbortError',
      refused: 'TypeError: fetch failed',
      made: [201, { made: true }],
      request: 'POST',
      blob: 'ab',
      form: true,
    });
  });

  it('gives every file the smaller Node 15+ APIs', async () => {
    const out = await runner.run(join(result.outdir, 'newer.js'), [{ method: 'GET', url: '/newer' }]);
    expect(JSON.parse(out.answers![0]!.body)).toEqual({
      clone: { a: [1, { b: new Date(0).toISOString() }] },
      at: 3,
      strAt: 'c',
      replaced: 'a.-b.-c',
      last: 3,
      lastIndex: -1,
      own: true,
      now: 'number',
    });
  });

  it("runs the docs' inner-call example with fetch under --check, answered by a real second server", async () => {
    const env = { ...process.env, CLOUDFN_INNER_CALL_RANK: base };
    const { checks } = await checkFunctionService(project.root, result.files, {
      node,
      env,
      platform: await checkPlatform(project.root, env),
    });
    const ranked = checks.find((c) => c.path === 'ranked.js')!;
    expect(ranked).toMatchObject({ ok: true, status: 200 });
    expect(ranked.notes?.join('\n')).toContain(
      `GET http://game-rank.inner-call.dyc.ivolces.com/top?n=2: answered 200 by ${base}`,
    );
  });
});

describe('a global Node 14 lacks and cloudfn does not provide', () => {
  it('stops the build with the file, the line and the fix, in one line', async () => {
    const bad = tempProject({
      'functions/id.ts': `// An id for the new room.\nexport default () => {\n  return { id: crypto.randomUUID() };\n};\n`,
      'functions/fine.ts': 'export default (crypto: { a: number }) => crypto.a;',
    });
    try {
      const error = await buildFunctionService(bad.root).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(error?.code).toBe('CLOUDFN_NODE14_GLOBAL');
      expect(error?.message).toBe(
        "functions/id.ts:3: crypto is not in Node 14, the function service's runtime, and cloudfn does not provide it; import { randomUUID, createHash } from 'node:crypto' instead",
      );
    } finally {
      bad.remove();
    }
  });
});
