/**
 * `cloudfn.config.ts`: compiled and read by the CLI and the library, and a misspelt key is an
 * error naming it and the key it most likely meant; two config files are refused.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveOptions } from '../../runtime/options.js';
import { loadConfigFile } from '../../runtime/serve/config-file.js';
import { loadProjectConfig } from '../../src/build/project-config.js';
import { startDevServer } from '../../src/dev/index.js';
import { spawnServer } from '../build/spawn-server.js';
import { REPO, ensureDist } from '../testing/ensure-dist.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project folder holding `files` (path → text) and a hello function. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cloudfn-config-'));
  dirs.push(root);
  const all = { 'functions/hello.ts': 'export default async () => ({ hello: 1 });\n', ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('cloudfn.config.ts', () => {
  it('is compiled and read, with defineConfig from cloudfn and a relative import', async () => {
    const root = project({
      'cloudfn.config.ts': [
        "import { defineConfig } from 'cloudfn';",
        "import { routes } from './config/routes';",
        'const port: number = 8765;',
        'export default defineConfig({ port, routes, limits: { maxBodySize: 2048 } });',
      ].join('\n'),
      'config/routes.ts': "export const routes = { '/hi': 'hello' };\n",
    });
    const config = await loadProjectConfig(root);
    expect(config.file).toBe(join(root, 'cloudfn.config.ts'));
    expect(config.routes).toEqual({ '/hi': 'hello' });
    const options = resolveOptions({ env: {}, config });
    expect(options.port).toBe(8765);
    expect(options.limits.maxBodySize).toBe(2048);
  });

  it('may be cloudfn.config.mts', async () => {
    const root = project({ 'cloudfn.config.mts': 'export default { host: "127.0.0.1" } satisfies object;\n' });
    expect((await loadProjectConfig(root)).host).toBe('127.0.0.1');
  });

  it('says a misspelt key is not an option and names the one it meant', async () => {
    const root = project({ 'cloudfn.config.ts': 'export default { port: 8765, prot: 9000 };\n' });
    await expect(loadProjectConfig(root)).rejects.toThrow(
      /^cloudfn\.config\.ts: prot is not an option; did you mean port\? \(the options are \$schema, routes, functions, limits, port, host/,
    );
  });

  it('says a misspelt limit is not a limit', async () => {
    const root = project({ 'cloudfn.config.json': '{ "limits": { "maxBodySise": 1 } }' });
    await expect(loadConfigFile(root)).rejects.toThrow(
      /^cloudfn\.config\.json: limits\.maxBodySise is not an option; did you mean limits\.maxBodySize\?/,
    );
  });

  it('lists the options when nothing is close', async () => {
    const root = project({ 'cloudfn.config.json': '{ "colour": "red" }' });
    await expect(loadConfigFile(root)).rejects.toThrow(/colour is not an option; the options are \$schema, routes/);
  });

  it('accepts $schema in cloudfn.config.json and leaves it out of the config', async () => {
    const root = project({ 'cloudfn.config.json': '{ "$schema": "./schema.json", "port": 3000 }' });
    const config = await loadConfigFile(root);
    expect(config).toEqual({ port: 3000, file: join(root, 'cloudfn.config.json') });
  });

  it('refuses two config files rather than ignoring one', async () => {
    const root = project({ 'cloudfn.config.ts': 'export default {};\n', 'cloudfn.config.json': '{}' });
    await expect(loadProjectConfig(root)).rejects.toThrow(
      /^cloudfn\.config\.ts and cloudfn\.config\.json: are both config files; keep one/,
    );
  });

  it('needs a compile hook in the runtime alone, and says so', async () => {
    const root = project({ 'cloudfn.config.ts': 'export default {};\n' });
    await expect(loadConfigFile(root)).rejects.toThrow(
      /cloudfn\.config\.ts: is TypeScript, which only the cloudfn CLI/,
    );
  });

  it('is read by cloudfn dev, which also stops on a misspelt key', async () => {
    const bad = project({ 'cloudfn.config.ts': 'export default { helthPath: "/ready" };\n' });
    await expect(startDevServer({ root: bad, port: 0, host: '127.0.0.1', sink: { write() {} } })).rejects.toThrow(
      'cloudfn.config.ts: helthPath is not an option; did you mean healthPath?',
    );
    const good = project({ 'cloudfn.config.ts': 'export default { healthPath: "/ready" };\n' });
    const dev = await startDevServer({ root: good, port: 0, host: '127.0.0.1', sink: { write() {} } });
    try {
      expect((await fetch(new URL('/ready', dev.url))).status).toBe(200);
    } finally {
      await dev.close();
    }
  });

  it('stops cloudfn start with one line naming the misspelt key', () => {
    ensureDist();
    const root = project({ 'cloudfn.config.ts': 'export default { port: 0, prot: 9000 };\n' });
    const run = spawnSync(process.execPath, [join(REPO, 'dist/src/cli/index.js'), 'start', root], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, PORT: '', HOST: '127.0.0.1' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^cloudfn: cloudfn\.config\.ts: prot is not an option; did you mean port\?/);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it.each([[[]], [['--workers', '2']]])(
    'configures cloudfn start %j: its health path answers, the default does not',
    async (extra) => {
      ensureDist();
      const root = project({
        'cloudfn.config.ts': [
          "import { defineConfig } from 'cloudfn';",
          "export default defineConfig({ healthPath: '/ready' });",
        ].join('\n'),
      });
      const server = await spawnServer([join(REPO, 'dist/src/cli/index.js'), 'start', root, ...extra], { cwd: root });
      try {
        // With workers, wait until each listens, as test/runtime/serve/cluster.test.ts does.
        const listening = () =>
          server
            .stdout()
            .split('\n')
            .filter((l) => l.includes('"msg":"listening on')).length;
        for (let i = 0; i < 400 && listening() < (extra.length === 0 ? 1 : 2); i++)
          await new Promise((resolve) => setTimeout(resolve, 25));
        const origin = new URL(server.url).origin;
        expect((await fetch(`${origin}/ready`)).status).toBe(200);
        expect(await (await fetch(`${origin}/ready`)).text()).not.toContain('hello');
        expect((await fetch(`${origin}/_cloudfn/health`)).status).toBe(404);
      } finally {
        await server.stop();
      }
    },
    60_000,
  );
});
