/**
 * A function file importing `@open-dy/node-server-sdk`, left as written, runs under
 * `cloudfn/testing`'s invoke, the dev server and `cloudfn start` (the project cannot resolve
 * the package, so the stand-in answers); `cloudfn build` leaves the import external. They run
 * the built package (dist/), as users get it: the stand-in is loaded by Node itself there.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../../src/build/index.js';
import type { startDevServer as StartDevServer } from '../../../src/dev/index.js';
import type { invoke as Invoke } from '../../../src/testing/index.js';
import { ensureDist, REPO } from '../../testing/ensure-dist.js';
import { tempProject, type TempProject } from '../../testing/project.js';

const FILES = {
  // The ESM form most templates use.
  'functions/who.ts': `import { dySDK } from '@open-dy/node-server-sdk';
export default async function (_params: unknown, service: { headers: Record<string, string | string[] | undefined> }) {
  const caller = dySDK.context(service).getContext();
  const visits = dySDK.database().collection('visits');
  await visits.add({ openId: caller.openId ?? 'nobody' });
  const { total } = await visits.where({ openId: caller.openId ?? 'nobody' }).count();
  return { openId: caller.openId ?? null, visits: total };
}
`,
  // The CommonJS form of the platform's function templates.
  'functions/legacy.cjs': `const { dySDK } = require('@open-dy/node-server-sdk');
module.exports = async function (params, context) {
  const reqContext = dySDK.context(context).getContext();
  return { code: 0, message: '', data: reqContext.openId };
};
`,
  // Plain ES module JavaScript, which Node loads without esbuild.
  'functions/plain.mjs': `import { dySDK } from '@open-dy/node-server-sdk';
export default (_params, service) => ({ appId: dySDK.context(service).getContext().appId ?? null });
`,
  // The default import, and a member the stand-in does not have.
  'functions/other.ts': `import sdk from '@open-dy/node-server-sdk';
export default () => {
  try {
    return { got: String((sdk.dySDK as unknown as Record<string, unknown>)['storage']) };
  } catch (error) {
    return { error: (error as Error).message };
  }
};
`,
};

const NOT_EMULATED = /^dySDK\.storage is not emulated by cloudfn's local stand-in/;
const cli = new URL('../../../dist/src/cli/index.js', import.meta.url).pathname;

let project: TempProject;
let invoke: typeof Invoke;
let startDevServer: typeof StartDevServer;
beforeAll(async () => {
  ensureDist();
  ({ invoke } = (await import(`${REPO}/dist/src/testing/index.js`)) as { invoke: typeof Invoke });
  ({ startDevServer } = (await import(`${REPO}/dist/src/dev/index.js`)) as { startDevServer: typeof StartDevServer });
  project = tempProject(FILES);
}, 120_000);
afterAll(() => project.remove());

describe('under invoke (cloudfn/testing)', () => {
  const saved = process.env['CLOUDFN_PLATFORM_DATA'];
  beforeAll(() => {
    process.env['CLOUDFN_PLATFORM_DATA'] = join(project.root, '.cloudfn', 'invoke-data');
  });
  afterEach(() => {
    if (saved === undefined) delete process.env['CLOUDFN_PLATFORM_DATA'];
    else process.env['CLOUDFN_PLATFORM_DATA'] = saved;
  });

  it('runs the ESM, CommonJS and default-import forms against the stand-in', async () => {
    const who = await invoke('functions/who.ts', { user: { openid: 'open-7' } }, { cwd: project.root });
    expect(who.json).toEqual({ openId: 'open-7', visits: 1 });
    const legacy = await invoke('functions/legacy.cjs', { user: { openid: 'open-7' } }, { cwd: project.root });
    expect(legacy.json).toEqual({ code: 0, message: '', data: 'open-7' });
    const other = await invoke('functions/other.ts', {}, { cwd: project.root });
    expect((other.json as { error: string }).error).toMatch(NOT_EMULATED);
    const stored = readFileSync(join(project.root, '.cloudfn', 'invoke-data', 'database', 'visits.json'), 'utf8');
    expect(JSON.parse(stored)).toEqual([{ _id: expect.any(String), openId: 'open-7' }]);
  });
});

describe('under invoke in a plain Node process', () => {
  it('runs an ES module JavaScript file (Node resolves it, through the stand-in hooks)', () => {
    // Inside vitest, vite resolves the imports of inlined files itself; a user's test runner
    // loads cloudfn from node_modules, where Node does, as here.
    const script = `const { invoke } = await import(${JSON.stringify(`${REPO}/dist/src/testing/index.js`)});
const res = await invoke('functions/plain.mjs', { user: { appid: 'tt-1' } }, { cwd: ${JSON.stringify(project.root)} });
process.stdout.write(JSON.stringify(res.json));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project.root,
      env: { ...process.env, CLOUDFN_PLATFORM_DATA: join(project.root, '.cloudfn', 'node-data') },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ appId: 'tt-1' });
  });
});

describe('with the real package installed', () => {
  it('uses it, not the stand-in, in TypeScript and CommonJS files', () => {
    const real = tempProject({
      'node_modules/@open-dy/node-server-sdk/package.json': JSON.stringify({
        name: '@open-dy/node-server-sdk',
        main: 'index.js',
      }),
      'node_modules/@open-dy/node-server-sdk/index.js': 'exports.dySDK = { real: true };\n',
      'functions/which.ts': `import { dySDK } from '@open-dy/node-server-sdk';\nexport default () => ({ real: 'real' in dySDK });\n`,
      'functions/which-cjs.cjs': `const { dySDK } = require('@open-dy/node-server-sdk');\nmodule.exports = () => ({ real: 'real' in dySDK });\n`,
    });
    try {
      const script = `const { invoke } = await import(${JSON.stringify(`${REPO}/dist/src/testing/index.js`)});
const a = await invoke('functions/which.ts', {}, { cwd: ${JSON.stringify(real.root)} });
const b = await invoke('functions/which-cjs.cjs', {}, { cwd: ${JSON.stringify(real.root)} });
process.stdout.write(JSON.stringify([a.json, b.json]));`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: real.root,
        encoding: 'utf8',
      });
      expect(JSON.parse(out)).toEqual([{ real: true }, { real: true }]);
    } finally {
      real.remove();
    }
  });
});

describe('under the dev server', () => {
  it('runs them, keeps the database in <root>/.cloudfn/platform and lists it on the console API', async () => {
    const dev = await startDevServer({
      root: project.root,
      port: 0,
      typecheck: false,
      sink: { write: () => {} },
      handleSignals: false,
    });
    try {
      const get = async (path: string, headers: Record<string, string> = {}) =>
        (await fetch(dev.url + path, { headers })).json() as Promise<Record<string, unknown>>;
      expect(await get('/who', { 'x-tt-openid': 'open-8' })).toEqual({ openId: 'open-8', visits: 1 });
      expect(await get('/who', { 'x-tt-openid': 'open-8' })).toEqual({ openId: 'open-8', visits: 2 });
      expect(await get('/legacy', { 'x-tt-openid': 'open-8' })).toMatchObject({ data: 'open-8' });
      expect(await get('/plain', { 'x-tt-appid': 'tt-3' })).toEqual({ appId: 'tt-3' });
      expect(String((await get('/other'))['error'])).toMatch(NOT_EMULATED);
      const listed = await get('/_cloudfn/api/database?collection=visits');
      expect(listed).toMatchObject({
        dir: join(project.root, '.cloudfn', 'platform', 'database'),
        collections: [{ name: 'visits', count: 2 }],
        collection: { name: 'visits', count: 2 },
      });
      const bad = await fetch(`${dev.url}/_cloudfn/api/database?collection=../etc`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({
        error: { code: 'PLATFORM_SDK_BAD_ARGUMENT', message: expect.stringContaining('got "../etc"') },
      });
    } finally {
      await dev.close();
    }
  });
});

describe('under cloudfn start', () => {
  it('runs them from the built CLI', async () => {
    const child = spawn(process.execPath, [cli, 'start', project.root, '--port', '0', '--host', '127.0.0.1'], {
      cwd: project.root,
      // As behind the platform's gateway: start strips X-TT-* headers unless told to trust them.
      env: { ...process.env, CLOUDFN_TRUST_GATEWAY_HEADERS: 'true', CLOUDFN_DRAIN_DELAY: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buffer = '';
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => reject(new Error(`cloudfn start exited ${code}: ${stderr}`)));
        child.stdout!.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          const match = /"url":"([^"]+)"/.exec(buffer);
          if (match) resolve(match[1]!.replace('localhost', '127.0.0.1'));
        });
      });
      const who = await (await fetch(`${url}/who`, { headers: { 'x-tt-openid': 'open-9' } })).json();
      expect(who).toEqual({ openId: 'open-9', visits: 1 });
      const legacy = await (await fetch(`${url}/legacy`, { headers: { 'x-tt-openid': 'open-9' } })).json();
      expect(legacy).toMatchObject({ data: 'open-9' });
      const plain = await (await fetch(`${url}/plain`, { headers: { 'x-tt-appid': 'tt-2' } })).json();
      expect(plain).toEqual({ appId: 'tt-2' });
      const other = (await (await fetch(`${url}/other`)).json()) as { error: string };
      expect(other.error).toMatch(NOT_EMULATED);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('under cloudfn build', () => {
  // Which SDK a container carries is the project's choice (test/build/sdk-builds.test.ts has more).
  it('stops in one line when the SDK is not installed and the stand-in not chosen', async () => {
    await expect(
      buildProject(project.root, { outdir: 'out', server: false, sourcemap: false, perFunction: true }),
    ).rejects.toThrow(
      /^functions\/legacy\.cjs, functions\/other\.ts, functions\/plain\.mjs, functions\/who\.ts import @open-dy\/node-server-sdk, which is not installed here/,
    );
  });

  it('bundles the stand-in with sdk "stand-in"', async () => {
    const result = await buildProject(project.root, {
      outdir: 'out',
      server: false,
      sourcemap: false,
      sdk: 'stand-in',
      perFunction: true,
    });
    const bundle = readFileSync(join(result.outdir, 'who', 'index.mjs'), 'utf8');
    expect(bundle).not.toMatch(/from ["']@open-dy\/node-server-sdk["']/);
    expect(bundle).toContain('is not emulated by cloudfn');
  });
});
