/**
 * `cloudfn build` of a project in the platform's layout (functionsDir "."): a bundle per root
 * function, nothing from config files, helpers or earlier output, and the built server reads
 * the gateway's headers when told to trust them and writes console.log with the logid.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject } from '../../src/build/index.js';
import { spawnServer } from './spawn-server.js';

const fixture = new URL('../fixtures/platform-root/', import.meta.url).pathname;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudfn-platform-build-'));
  cpSync(fixture, root, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('cloudfn build with functionsDir "."', () => {
  it('bundles the root functions only, and not its own earlier output in a custom outdir', async () => {
    for (let i = 0; i < 2; i++) {
      const result = await buildProject(root, { outdir: 'out' });
      const manifest = JSON.parse(readFileSync(join(root, 'out', 'cloudfn-build.json'), 'utf8')) as {
        functions: string[];
      };
      expect(manifest.functions, `build ${i + 1}`).toEqual(['get_open_id', 'start_game']);
      expect(result.bundles.map((b) => b.name)).toEqual(['server.mjs']);
    }
    expect(existsSync(join(root, 'out', 'vite.config'))).toBe(false);
  }, 60_000);

  it('gives a server that trusts X-TT-* headers only when told, and logs console.log with the logid', async () => {
    await buildProject(root);
    for (const trust of ['false', 'true']) {
      const server = await spawnServer([join(root, 'dist', 'server.mjs')], {
        cwd: root,
        env: { CLOUDFN_TRUST_GATEWAY_HEADERS: trust },
      });
      try {
        const res = await fetch(`${server.url}/get_open_id`, { headers: { 'x-tt-openid': 'ann' } });
        const body = (await res.json()) as { openid: string | null };
        expect(body.openid, `trust ${trust}`).toBe(trust === 'true' ? 'ann' : null);
        const logid = res.headers.get('x-platform-logid');
        await expect
          .poll(() =>
            server
              .stdout()
              .split('\n')
              .some((line) => line.includes('"msg":"get_open_id called"') && line.includes(`"logid":"${logid}"`)),
          )
          .toBe(true);
      } finally {
        await server.stop();
      }
    }
  }, 60_000);
});
