/**
 * One file to start (src/build/fold-chunks.ts): a bundle's entry imports no chunk statically,
 * the chunks loaded on first use share one instance of each module with it (an HttpError thrown
 * from a lazily imported module is still an HttpError to the runtime), an `import()` in a folded
 * chunk still finds its lazy chunk, a function with top-level await that imports lazily
 * keeps its chunks apart and starts, and a minified entry carries only the esbuild helpers it uses.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProject, checkBundle, type BuildResult, type BuiltBundle } from '../../src/build/index.js';
import { tempProject } from '../testing/project.js';
import { spawnServer } from './spawn-server.js';

const project = tempProject({
  'functions/teapot.ts': `export default async () => {
  const { boom } = await import('./_boom.js');
  boom();
};`,
  'functions/_boom.ts': `import { HttpError } from 'cloudfn';
export function boom(): never {
  throw new HttpError(418, 'short and stout');
}`,
  'functions/waits.ts': `const { kind } = await import('./_kind.js');
export default () => ({ kind });`,
  'functions/_kind.ts': `import { HttpError } from 'cloudfn';
export const kind = typeof HttpError;`,
  // _shared is imported by the entry and by the lazy _user: a chunk of _chunks/ that is folded
  // into the entry, with an import() of its own written relative to _chunks/.
  'functions/relay.ts': `import { later } from './_shared.js';
export default async () => ({ got: await later(), user: (await import('./_user.js')).uses() });`,
  'functions/_shared.ts': `export async function later(): Promise<string> {
  return (await import('./_far.js')).far;
}`,
  'functions/_user.ts': `import { later } from './_shared.js';
export const uses = () => typeof later;`,
  'functions/_far.ts': `export const far = 'far';`,
});
let result: BuildResult;

beforeAll(async () => {
  result = await buildProject(project.root, { server: false, perFunction: true });
}, 60_000);
afterAll(() => project.remove());

const bundleOf = (name: string): BuiltBundle => result.bundles.find((b) => b.name === name)!;

/** The chunk files an entry imports with an import statement. */
function staticImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*"(\.\/_chunks\/[^"]+\.mjs)"/g)].map((m) => m[1]!);
}

describe('cloudfn build: one file to start', () => {
  it('writes an entry that imports no chunk statically, and counts it alone as what loads at start', () => {
    const teapot = bundleOf('teapot');
    expect(staticImports(teapot.file)).toEqual([]);
    expect(teapot.bytes).toBe(readFileSync(teapot.file).length);
    // Unminified, the folded entry still names the source files it holds.
    expect(readFileSync(teapot.file, 'utf8')).toContain('runtime/request/handle.');
    const forwarders = teapot.chunks.filter((file) => /from "\.\.\/index\.mjs"/.test(readFileSync(file, 'utf8')));
    expect(forwarders.length).toBeGreaterThan(0);
  });

  it('points the import() of a folded chunk from the entry folder: the lazy chunk loads', async () => {
    const server = await spawnServer([bundleOf('relay').file], { cwd: project.root });
    try {
      const res = await fetch(`${server.url}/relay`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ got: 'far', user: 'function' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('keeps one HttpError class: thrown from a lazily imported module, it answers its own status', async () => {
    const server = await spawnServer([bundleOf('teapot').file], { cwd: project.root });
    try {
      const res = await fetch(`${server.url}/teapot`);
      expect(res.status).toBe(418);
      expect(await res.text()).toContain('short and stout');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('keeps the chunks of a function with top-level await apart, and it starts', async () => {
    const waits = bundleOf('waits');
    expect(staticImports(waits.file).length).toBeGreaterThan(0);
    const server = await spawnServer([waits.file], { cwd: project.root });
    try {
      const res = await fetch(`${server.url}/waits`);
      expect(await res.json()).toEqual({ kind: 'function' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('copies into a minified entry only the esbuild helpers it uses; the lazy chunks keep theirs', async () => {
    const minified = await buildProject(project.root, {
      outdir: 'dist-min',
      minify: true,
      sourcemap: false,
      server: false,
      perFunction: true,
    });
    const relay = minified.bundles.find((b) => b.name === 'relay')!;
    // `__require` and `__toESM`: raw-body's chunk uses them, the entry does not.
    const entry = readFileSync(relay.file, 'utf8');
    expect(entry).not.toContain('Dynamic require');
    expect(entry).not.toContain('__esModule');
    const helpers = relay.chunks.filter((file) => readFileSync(file, 'utf8').includes('Dynamic require'));
    expect(helpers).toHaveLength(1);
    expect(readFileSync(helpers[0]!, 'utf8')).not.toContain('index.mjs');
    expect(await checkBundle(relay.file, { chunks: relay.chunks })).toMatchObject({ ok: true });
    const server = await spawnServer([relay.file], { cwd: project.root });
    try {
      // A chunked body is read by raw-body, a CommonJS chunk loaded now with the helpers' file.
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"a":'));
          controller.enqueue(new TextEncoder().encode('1}'));
          controller.close();
        },
      });
      const res = await fetch(`${server.url}/relay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ got: 'far', user: 'function' });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('passes --check, which imports every chunk and forwarder', async () => {
    for (const b of result.bundles) expect(await checkBundle(b.file, { chunks: b.chunks })).toMatchObject({ ok: true });
  });
});
