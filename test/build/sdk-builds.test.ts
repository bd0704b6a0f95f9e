/**
 * Builds of a project that imports `@open-dy/node-server-sdk` without having it (the platform's
 * templates, on the public registry), each failure of issue 30 reproduced with the sdk-project
 * fixture: the function-service target leaves the SDK to the platform and its --check runs the
 * stand-in under Node 14; the container target bundles the stand-in when asked and otherwise
 * stops with one line; output is all or nothing; one target never blocks the other.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/build/bundle.js';
import { checkBundle } from '../../src/build/check-bundles.js';
import {
  buildFunctionService,
  checkFunctionService,
  findCheckNode,
  formatCheckTable,
} from '../../src/build/function-service/index.js';
import { spawnSync } from 'node:child_process';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { spawnServer } from './spawn-server.js';

const fixture = new URL('../fixtures/sdk-project/', import.meta.url).pathname;
const node14 = findCheckNode(process.cwd());
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cloudfn-sdk-build-'));
  temps.push(dir);
  // Not the fixture's own .cloudfn/: other tests invoke its functions in place, and their
  // compile output there must not read as the check's.
  cpSync(fixture, dir, { recursive: true, filter: (source) => !source.includes(`${sep}.cloudfn`) });
  return dir;
}

const config = (dir: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, 'cloudfn.config.json'), 'utf8')) as Record<string, unknown>;

function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('the function-service target', () => {
  it('leaves the SDK external and names it in package.json, with no --external', async () => {
    const dir = copy();
    const result = await buildFunctionService(dir);
    expect(result.external).toEqual(['@open-dy/node-server-sdk']);
    expect(result.sdkImporters).toEqual(['open_round.ts', 'save_score.js', 'whoami.ts']);
    const pkg = JSON.parse(readFileSync(join(result.outdir, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toEqual({ '@open-dy/node-server-sdk': '*' });
    // Required by name where the function's module runs (esbuild's `__require` is the file's require).
    expect(readFileSync(join(result.outdir, 'whoami.js'), 'utf8')).toMatch(/require\)?\("@open-dy\/node-server-sdk"\)/);
  });

  it.skipIf(!node14.platformVersion)(
    'checks every file under Node 14 with the stand-in in the SDK’s place, and says so',
    async () => {
      const dir = copy();
      const result = await buildFunctionService(dir);
      const requests = config(dir)['checkRequests'] as Record<string, never>;
      const { node, checks, sdkStandIn } = await checkFunctionService(dir, result.files, {
        sdkImporters: result.sdkImporters,
        requests,
      });
      expect(sdkStandIn).toBe(true);
      expect(checks.map((c) => [c.path, c.ok, c.problem])).toEqual([
        ['open_round.js', true, undefined],
        ['relay_message.js', true, undefined],
        ['save_score.js', true, undefined],
        ['whoami.js', true, undefined],
      ]);
      const table = formatCheckTable(node, checks, { sdkStandIn });
      expect(table).toContain(
        "@open-dy/node-server-sdk is not installed here: the check loads cloudfn's stand-in in its place",
      );
      // The stand-in's database wrote to the check's temporary folder, not into the project.
      expect(existsSync(join(dir, '.cloudfn'))).toBe(false);

      // Without its request, the live-data callback reads params[0] of a bare GET: one line.
      const bare = await checkFunctionService(dir, result.files, { sdkImporters: result.sdkImporters });
      const relay = bare.checks.find((c) => c.path === 'relay_message.js')!;
      expect(relay.ok).toBe(false);
      expect(relay.problem).toMatch(/^threw TypeError: Cannot read propert/);
      expect(relay.problem).not.toContain('\n');
    },
    60_000,
  );
});

describe('--check of the function-service target', () => {
  it.skipIf(!node14.platformVersion)(
    'fails a function that throws a bad SDK argument, and the table names checkRequests',
    async () => {
      const dir = copy();
      // doc(undefined): the stand-in throws PLATFORM_DB_BAD_DOC_ID (the platform's 156401), which the real SDK would
      // refuse as well; it is the function's error, not an OpenAPI call made on the platform.
      writeFileSync(
        join(dir, 'load_player.ts'),
        "import { dySDK } from '@open-dy/node-server-sdk';\nexport default async function (params: any) {\n  return dySDK.database().collection('players').doc(params.id).get();\n}\n",
      );
      const result = await buildFunctionService(dir);
      const { node, checks, sdkStandIn } = await checkFunctionService(dir, result.files, {
        sdkImporters: result.sdkImporters,
        requests: config(dir)['checkRequests'] as Record<string, never>,
      });
      const player = checks.find((c) => c.path === 'load_player.js')!;
      expect(player.ok).toBe(false);
      expect(player.problem).toContain('PLATFORM_DB_BAD_DOC_ID');
      const table = formatCheckTable(node, checks, { sdkStandIn });
      expect(table).toMatch(/load_player\.js +FAIL/);
      expect(table).toContain('gets its own request from checkRequests in cloudfn.config.json');
      expect(table).toContain('{ "checkRequests": { "load_player": {');
    },
    60_000,
  );
});

describe('the container target', () => {
  it('cloudfn build refuses before its type check, in one line', () => {
    ensureDist();
    const dir = copy();
    const run = spawnSync(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'build'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).not.toContain('type checking');
    expect(run.stderr).toMatch(
      /^cloudfn: open_round\.ts, save_score\.js, whoami\.ts import @open-dy\/node-server-sdk, which is not installed here/,
    );
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  }, 60_000);

  it('stops with one line when the SDK is neither installed nor the stand-in chosen, writing nothing', async () => {
    const dir = copy();
    const failed = await buildProject(dir).then(
      () => undefined,
      (error: Error & { code?: string }) => error,
    );
    expect(failed?.code).toBe('CLOUDFN_SDK_NOT_INSTALLED');
    expect(failed?.message).toMatch(
      /^open_round\.ts, save_score\.js, whoami\.ts import @open-dy\/node-server-sdk, which is not installed here, .*set "sdk": "stand-in" in cloudfn\.config\.json/,
    );
    expect(failed?.message).not.toContain('\n');
    expect(listing(dir).filter((entry) => entry.startsWith('dist') || entry.startsWith('.cloudfn-build'))).toEqual([]);
  });

  it('with "sdk": "stand-in" bundles the stand-in, and the image answers from it', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'cloudfn.config.json'), JSON.stringify({ ...config(dir), sdk: 'stand-in' }));
    // The query engine too (mingo, which a bundle hands over as a CommonJS default).
    writeFileSync(
      join(dir, 'top_scores.ts'),
      `import { dySDK } from '@open-dy/node-server-sdk';
export default async function () {
  const db = dySDK.database();
  const { data } = await db.collection('scores').aggregate().sort({ score: -1 }).limit(1).end();
  const { total } = await db.collection('scores').where({ score: db.command.gte(0) }).count();
  return { best: data[0]?.score ?? null, total };
}
`,
    );
    const result = await buildProject(dir, { sourcemap: false });
    const server = result.bundles.find((b) => b.name === 'server.mjs')!;
    expect(readFileSync(server.file, 'utf8')).not.toMatch(/(from |require\()"@open-dy\/node-server-sdk"/);
    expect((await checkBundle(server.file, { chunks: server.chunks })).ok).toBe(true);
    // Run from a folder with nothing but the bundles, as the image's run stage has it.
    const image = mkdtempSync(join(tmpdir(), 'cloudfn-sdk-image-'));
    temps.push(image);
    cpSync(result.outdir, join(image, 'dist'), { recursive: true });
    const spawned = await spawnServer(['dist/server.mjs'], {
      cwd: image,
      env: { CLOUDFN_TRUST_GATEWAY_HEADERS: 'true' },
    });
    try {
      const who = await fetch(`${spawned.url}/whoami`, { headers: { 'x-tt-openid': 'ann', 'x-tt-appid': 'tt1' } });
      expect(await who.json()).toEqual({ openId: 'ann', appId: 'tt1' });
      const saved = await fetch(`${spawned.url}/save_score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"score":3}',
      });
      expect(await saved.json()).toMatchObject({ saved: true });
      expect(await (await fetch(`${spawned.url}/top_scores`)).json()).toEqual({ best: 3, total: 1 });
    } finally {
      await spawned.stop();
    }
  }, 90_000);
});

describe('the output folder', () => {
  it('is all or nothing: a failed build leaves the previous output as it was', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'cloudfn.config.json'), JSON.stringify({ ...config(dir), sdk: 'stand-in' }));
    await buildProject(dir, { sourcemap: false });
    await buildFunctionService(dir);
    const before = listing(join(dir, 'dist'));
    const server = readFileSync(join(dir, 'dist', 'server.mjs'));
    writeFileSync(join(dir, 'whoami.ts'), 'export default async function ( {\n');
    await expect(buildProject(dir, { sourcemap: false })).rejects.toThrow(/whoami\.ts/);
    await expect(buildFunctionService(dir)).rejects.toThrow(/whoami\.ts/);
    expect(listing(join(dir, 'dist'))).toEqual(before);
    expect(readFileSync(join(dir, 'dist', 'server.mjs'))).toEqual(server);
    expect(readdirSync(dir).filter((entry) => entry.startsWith('.cloudfn-build'))).toEqual([]);
  }, 60_000);

  it('of one target never blocks the other, in either order', async () => {
    for (const order of [
      ['function-service', 'server'],
      ['server', 'function-service'],
    ]) {
      const dir = copy();
      writeFileSync(join(dir, 'cloudfn.config.json'), JSON.stringify({ ...config(dir), sdk: 'stand-in' }));
      for (const target of order)
        if (target === 'server') await buildProject(dir, { sourcemap: false });
        else await buildFunctionService(dir);
      // And once more each, over the other's output.
      await buildFunctionService(dir);
      await buildProject(dir, { sourcemap: false });
      const dist = readdirSync(join(dir, 'dist')).sort();
      expect(dist).toEqual(expect.arrayContaining(['function-service', 'server.mjs', '_chunks', 'cloudfn-build.json']));
      expect(readdirSync(join(dir, 'dist', 'function-service')).sort()).toEqual([
        'cloudfn-build.json',
        'open_round.js',
        'package.json',
        'relay_message.js',
        'save_score.js',
        'whoami.js',
      ]);
    }
  }, 90_000);

  it('still refuses a folder holding files cloudfn did not write, naming them', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'cloudfn.config.json'), JSON.stringify({ ...config(dir), sdk: 'stand-in' }));
    cpSync(join(dir, 'package.json'), join(dir, 'dist', 'notes.txt'));
    await expect(buildProject(dir)).rejects.toThrow(
      /dist: exists and holds notes\.txt, which cloudfn build did not write/,
    );
  });
});
