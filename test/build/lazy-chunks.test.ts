/**
 * What a bundle loads only when first needed: the multipart parser with busboy, the cookie
 * codec and the Redis stores sit in chunk files beside the entry, not in what Node compiles at
 * start. Checked on unminified bundles, whose comments name every source file they hold, and
 * by running a copied bundle folder that must find its chunks when a request needs them.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, checkBundle, type BuildResult, type BuiltBundle } from '../../src/build/index.js';
import { tempProject } from '../testing/project.js';
import { spawnServer } from './spawn-server.js';

const project = tempProject({
  'functions/files.ts': `import type { Handler } from 'cloudfn';
const files: Handler = (params, service) => {
  service.setCookie('seen', 'yes', { httpOnly: true });
  const file = (params as { doc?: { size: number } }).doc;
  return { size: file?.size ?? null, cookie: service.cookies.who ?? null };
};
export default files;`,
  'functions/media.ts': `import { createMediaClient } from 'cloudfn/media';
export default () => ({ client: typeof createMediaClient });`,
  'functions/signed.ts': `import { verifyCallback } from 'cloudfn/sign';
export default () => ({ verify: typeof verifyCallback });`,
  'functions/plain.ts': `export default (params: Record<string, unknown>) => {
  if (params.crash === 'yes') throw new Error('disk full');
  return { got: params };
};`,
  'functions/timed.ts': `export const config = { timeout: 5000 };
export default () => ({ timed: true });`,
});
let result: BuildResult;

beforeAll(async () => {
  result = await buildProject(project.root, { sourcemap: false, server: false, perFunction: true });
}, 60_000);
afterAll(() => project.remove());

const bundleOf = (name: string): BuiltBundle => result.bundles.find((b) => b.name === name)!;

/** The text Node reads at start: the entry and the chunks it imports statically. */
function atStart(b: BuiltBundle): string {
  const entry = readFileSync(b.file, 'utf8');
  const imported = [...entry.matchAll(/from\s*"\.\/(_chunks\/[^"]+\.mjs)"/g)].map((m) =>
    readFileSync(join(b.file, '..', m[1]!), 'utf8'),
  );
  return [entry, ...imported].join('\n');
}

/** The text of every chunk. */
function allChunks(b: BuiltBundle): string {
  return b.chunks.map((file) => readFileSync(file, 'utf8')).join('\n');
}

describe('cloudfn build: what loads when first needed', () => {
  it('keeps busboy, the multipart parser, raw-body and the cookie package out of what loads at start', () => {
    const files = bundleOf('files');
    const start = atStart(files);
    expect(start).toContain('runtime/request/handle.');
    for (const lazy of [
      'node_modules/busboy/',
      'runtime/body/multipart.',
      'node_modules/cookie/',
      'node_modules/raw-body/',
    ]) {
      expect(start, lazy).not.toContain(lazy);
      expect(allChunks(files), lazy).toContain(lazy);
    }
    expect(files.lazyBytes).toBeGreaterThan(20_000);
    // raw-body's iconv-lite (490 kB minified) is replaced by node's decoders (lean-deps.ts).
    expect(allChunks(files)).not.toContain('node_modules/iconv-lite/');
    expect(allChunks(files)).toContain('build/shims/iconv-lite.');
  });

  it('keeps the Redis stores of a fleet out of functions that use the media client or verifiers without Redis', () => {
    for (const name of ['media', 'signed']) {
      const b = bundleOf(name);
      const start = atStart(b);
      expect(start, name).toContain(name === 'media' ? 'src/media/call.' : 'src/sign/shared-nonces.');
      for (const store of ['src/fleet/connect.', 'src/fleet/nonce-store.'])
        expect(start, `${name}: ${store}`).not.toContain(store);
      expect(allChunks(b), name).toContain('src/fleet/connect.');
    }
    const media = atStart(bundleOf('media'));
    expect(media).not.toContain('src/fleet/rate-limiter.');
    expect(media).not.toContain('src/fleet/token-store.');
  });

  it('runs from a copied folder: the first multipart body and the first cookie load their chunks', async () => {
    const alone = mkdtempSync(join(tmpdir(), 'cloudfn-lazy-'));
    try {
      cpSync(join(project.root, 'dist/files'), alone, { recursive: true });
      const server = await spawnServer(['index.mjs'], { cwd: alone });
      try {
        const form = new FormData();
        form.append('doc', new Blob([Buffer.alloc(3000, 1)]), 'doc.bin');
        const res = await fetch(`${server.url}/files`, { method: 'POST', body: form, headers: { cookie: 'who=me' } });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ size: 3000, cookie: 'me' });
        expect(res.headers.get('set-cookie')).toBe('seen=yes; HttpOnly');
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it('turns metrics on at deploy time: CLOUDFN_METRICS reads the metrics chunk, and it was not read before', async () => {
    const files = bundleOf('files');
    expect(atStart(files)).not.toContain('node_modules/prom-client/');
    expect(allChunks(files)).toContain('node_modules/prom-client/');
    const server = await spawnServer([files.file], { cwd: project.root, env: { CLOUDFN_METRICS: 'true' } });
    try {
      expect((await fetch(`${server.url}/files`)).status).toBe(200);
      const res = await fetch(`${server.url}/_cloudfn/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^cloudfn_requests_total\{[^}]*function="files"[^}]*\} 1$/m);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('keeps what a plain function does not use out of its start code (issue 44)', () => {
    const start = atStart(bundleOf('plain'));
    expect(start).toContain('runtime/request/handle.');
    for (const lazy of [
      'runtime/serve/load.',
      'runtime/serve/module-errors.',
      'runtime/serve/client-error.',
      'runtime/serve/import-metrics.',
      'runtime/serve/parent-gone.',
      'runtime/body/json-error.',
      'runtime/body/json-poison.',
      'runtime/body/form.',
      'runtime/body/raw-body-errors.',
      'runtime/request/error-answer.',
      'runtime/request/decode-path.',
      'runtime/request/service-parts.',
      'runtime/request/caller.',
      'runtime/contract/errors.',
    ]) {
      expect(start, lazy).not.toContain(lazy);
      expect(allChunks(bundleOf('plain')), lazy).toContain(lazy);
    }
  });

  it('answers from a copied folder what loads on first need: errors, odd paths, bad JSON, forms', async () => {
    const alone = mkdtempSync(join(tmpdir(), 'cloudfn-lazy-'));
    try {
      cpSync(join(project.root, 'dist/plain'), alone, { recursive: true });
      const server = await spawnServer(['index.mjs'], { cwd: alone });
      try {
        const json = (body: string) =>
          fetch(`${server.url}/plain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const crash = await fetch(`${server.url}/plain?crash=yes`);
        expect(crash.status).toBe(500);
        expect((await crash.json()).error.code).toBe('CLOUDFN_HANDLER_ERROR');
        const bad = await json('{"a":}');
        expect(bad.status).toBe(400);
        expect((await bad.json()).error.message).toBe(
          "the body is not valid JSON: unexpected '}' at line 1, column 6 (position 5)",
        );
        const poisoned = await json('{"__proto__":{"admin":true}}');
        expect(poisoned.status).toBe(400);
        expect((await poisoned.json()).error.code).toBe('CLOUDFN_POISONED_JSON');
        const form = await fetch(`${server.url}/plain`, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
        expect(await form.json()).toEqual({ got: { a: '1' } });
        expect(await (await fetch(`${server.url}/pl%61in?b=2`)).json()).toEqual({ got: { b: '2' } });
        expect((await fetch(`${server.url}/a%2Fb`)).status).toBe(400);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });

  it('serves a function with a config, whose checks it imports at start', async () => {
    expect(atStart(bundleOf('timed'))).not.toContain('runtime/serve/load.');
    const server = await spawnServer([bundleOf('timed').file], { cwd: project.root });
    try {
      expect(await (await fetch(`${server.url}/timed`)).json()).toEqual({ timed: true });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("refuses at start a function whose config is bad, with the loader's one line", async () => {
    const bad = tempProject({
      'functions/bad.ts': 'export const config = { timeout: -1 };\nexport default () => 1;\n',
    });
    try {
      const built = await buildProject(bad.root, { sourcemap: false, server: false, perFunction: true });
      const file = built.bundles.find((b) => b.name === 'bad')!.file;
      const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = execFile(process.execPath, [file], { env: { ...process.env, PORT: '0' } }, (error, _out, err) =>
          done({ code: error === null ? 0 : (child.exitCode ?? 1), stderr: err }),
        );
      });
      expect(code).toBe(1);
      expect(stderr).toBe('cloudfn: functions/bad.ts: config.timeout must be a whole number of milliseconds, got -1\n');
    } finally {
      bad.remove();
    }
  }, 30_000);

  it('--check imports the chunks too, and names one that cannot load', async () => {
    const files = bundleOf('files');
    const good = await checkBundle(files.file, { chunks: files.chunks });
    expect(good).toMatchObject({ ok: true });
    const multipart = files.chunks.find((file) => readFileSync(file, 'utf8').includes('runtime/body/multipart.'))!;
    const saved = readFileSync(multipart);
    try {
      writeFileSync(multipart, 'import "./missing-chunk.mjs";\n');
      const bad = await checkBundle(files.file, { chunks: files.chunks });
      expect(bad.ok).toBe(false);
      expect(bad.problem).toMatch(/a chunk it loads on first use failed to import:[\s\S]*missing-chunk\.mjs/);
    } finally {
      writeFileSync(multipart, saved);
    }
  });
});
