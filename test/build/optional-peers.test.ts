/**
 * The optional-peers plugin (src/build/optional-peers.ts): prom-client and mingo are bundled
 * when they resolve and left external when they do not, where esbuild alone would stop the
 * build (a file outside node_modules, as in a checkout or a linked copy of cloudfn).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, expect, it } from 'vitest';
import { optionalPeers } from '../../src/build/optional-peers.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudfn-optional-peers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry in a folder where neither peer can be resolved. */
const entry = join(dir, 'entry.mjs');
writeFileSync(
  entry,
  "export const engine = () => import('mingo');\nexport const metrics = () => import('prom-client');\n",
);

const bundle = (plugins: ReturnType<typeof optionalPeers>[]) =>
  build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    plugins,
  });

it('leaves an optional peer external when it does not resolve, so the build goes on', async () => {
  const result = await bundle([optionalPeers()]);
  const code = result.outputFiles[0]!.text;
  expect(code).toContain('import("mingo")');
  expect(code).toContain('import("prom-client")');
});

it('is what keeps the build going: without it, esbuild stops at the missing package', async () => {
  await expect(bundle([])).rejects.toThrow(/Could not resolve "mingo"/);
});

it('bundles mingo when it resolves: the stand-in in this checkout, where it is a dev dependency', async () => {
  const result = await build({
    entryPoints: [join(import.meta.dirname, '..', '..', 'src', 'platform', 'sdk', 'mingo.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    plugins: [optionalPeers()],
  });
  expect(result.outputFiles[0]!.text).not.toContain('import("mingo")');
});
