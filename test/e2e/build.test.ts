/**
 * `cloudfn build` as users run it: the built CLI on a project folder, its table, its exit
 * codes, and the one-line message it shares with `cloudfn start`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureDist } from '../testing/ensure-dist.js';
import { tempProject } from '../testing/project.js';
import { spawnServer } from '../build/spawn-server.js';
import { installCopy } from '../testing/installed-copy.js';

const CLI = join(REPO, 'dist/src/cli/index.js');
const cli = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
  });

beforeAll(() => ensureDist(), 120_000);

describe('cloudfn build (CLI)', () => {
  const project = tempProject({
    'functions/hello.ts': `import type { Handler } from 'cloudfn';\nconst hello: Handler = (params) => ({ hello: params.name ?? 'world' });\nexport default hello;`,
    'functions/videos/list.ts': `export default () => [];`,
  });
  afterAll(() => project.remove());

  it('builds server.mjs alone by default, and checks that one server', () => {
    const run = cli(['build', '.', '--outdir', 'out', '--minify', '--check'], project.root);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^server\.mjs\s+\d+(\.\d)? kB/m);
    expect(run.stdout).toMatch(/1 bundle in out \(\d+ ms\)/);
    expect(run.stdout).toMatch(/^ok {4}out\/server\.mjs \(\d+ ms\)$/m);
    // What is deployed is one process for both functions, and the check says how long it took.
    expect(run.stdout).toMatch(/^checked 1 server in \d+ ms$/m);
    expect(run.stdout).not.toContain('index.mjs');
    expect(readdirSync(join(project.root, 'out')).sort()).toEqual([
      '_chunks',
      'cloudfn-build.json',
      'openapi.json',
      'server.mjs',
      'server.mjs.map',
    ]);
  });

  it('with --per-function prints the table and the checks of every bundle, and exits 0', () => {
    const run = cli(['build', '.', '--outdir', 'out', '--minify', '--check', '--per-function'], project.root);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^function\s+size\s+gzip\s+lazy\s+time$/);
    for (const name of ['hello', 'videos/list', 'server.mjs'])
      expect(lines.find((l) => l.startsWith(name + ' '))).toMatch(
        /\d+(\.\d)? kB\s+\d+(\.\d)? kB\s+(\d+(\.\d)? kB|-)\s+\d+ ms$/,
      );
    expect(run.stdout).toMatch(/3 bundles in out \(\d+ ms\)/);
    expect(run.stdout).toMatch(/^ok {4}out\/hello\/index\.mjs \(\d+ ms\)$/m);
    expect(run.stdout).toMatch(/^ok {4}out\/server\.mjs \(\d+ ms\)$/m);
    expect(run.stdout).toMatch(/^checked 1 server and 2 per-function bundles in \d+ ms$/m);
    // No tsconfig.json here: one line says types were not checked, after the table.
    expect(run.stdout).toContain(
      `\ntype check off: no tsconfig.json in ${project.root} (add one to have types checked)\n`,
    );
  });

  it('shows its options with --help and refuses unknown flags in one line', () => {
    expect(cli(['build', '--help'], project.root).stdout).toMatch(
      /^usage: cloudfn build \[root\] \[--target server\|function-service\] \[--outdir dist\]/,
    );
    const bad = cli(['build', '--outdir'], project.root);
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const mixed = cli(['build', '--target', 'function-service', '--per-function'], project.root);
    expect(mixed.status).toBe(1);
    expect(mixed.stderr).toBe(
      'cloudfn: --per-function applies to --target server only; the function service always gets one file per function\n',
    );
  });

  it('fails without a default export with exactly the line cloudfn start prints', () => {
    const broken = tempProject({ 'functions/nodefault.ts': 'export const handler = () => 1;' });
    try {
      const build = cli(['build'], broken.root);
      const start = cli(['start'], broken.root);
      expect(build.status).toBe(1);
      expect(start.status).toBe(1);
      expect(build.stderr).toBe(
        'cloudfn: functions/nodefault.ts has no default export: export default async function (params, service) { ... } (or module.exports = async (params, service) => { ... })\n',
      );
      expect(build.stderr).toBe(start.stderr);
      expect(build.stdout).toBe('');
    } finally {
      broken.remove();
    }
  });
});

describe('cloudfn build source maps (as installed: cloudfn from dist/)', () => {
  const project = tempProject({
    'functions/crash.ts': `export default () => {
  const value: { deep?: { field: string } } = {};
  return value.deep!.field;
};`,
  });
  afterAll(() => project.remove());

  it('resolves a stack trace under --enable-source-maps to real lines whose text the map carries', async () => {
    const installed = installCopy(project.root);
    const built = spawnSync(
      process.execPath,
      [join(installed, 'dist/src/cli/index.js'), 'build', '--no-typecheck', '--per-function'],
      {
        cwd: project.root,
        encoding: 'utf8',
      },
    );
    // The copy has no ioredis (an optional peer): the build says so, and says nothing else.
    expect(built.stderr.replace(/^cloudfn: warning: ioredis is not installed.*\n/m, '')).toBe('');
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
    const stack = (JSON.parse(line) as { stack: string }).stack;
    expect(stack).toMatch(/functions\/crash\.ts:3:\d+/);
    // cloudfn's own frames name its .ts files, which are not shipped: their text must be in the
    // map (sourcesContent, from dist's maps), or a reader of the trace has nothing to open.
    const map = JSON.parse(readFileSync(join(project.root, 'dist/crash/index.mjs.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: (string | null)[];
    };
    expect(map.sources.filter((_, i) => typeof map.sourcesContent?.[i] !== 'string')).toEqual([]);
    const frames = [...stack.matchAll(/([^\s()]+\.ts):(\d+):\d+\)?$/gm)].map(([, file, at]) => ({
      file: file!,
      at: Number(at),
    }));
    expect(frames.filter((f) => f.file.includes('runtime/')).length).toBeGreaterThan(0);
    for (const frame of frames) {
      const index = map.sources.findIndex((source) => frame.file.endsWith(source.replace(/^(\.\.\/)+/, '')));
      expect(index, frame.file).toBeGreaterThanOrEqual(0);
      expect(map.sourcesContent![index]!.split('\n')[frame.at - 1]?.trim(), frame.file).not.toBe('');
    }
  }, 60_000);
});
