/**
 * The ablation's variants (test/bench/lib/ablation-variants.mjs): every part's patches still
 * match the built runtime exactly once, a variant serves with its part really off, and the
 * served code names no benchmark switch (issue 57, item 5).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ABLATION_PARTS, ablatedDist, PATCHES, partsOf } from './lib/ablation-variants.mjs';

const ROOT = join(import.meta.dirname, '../..');
const built = existsSync(join(ROOT, 'dist/runtime/index.js'));

/** Every .ts file under a folder, or the file itself. */
function sources(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => sources(join(path, name)));
}

it('leaves the served path free of benchmark switches', () => {
  for (const where of ['runtime/request', 'runtime/serve', 'runtime/app.ts'])
    for (const file of sources(join(ROOT, where)))
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/ablat|CLOUDFN_BENCH/i);
});

it('reads a list of parts, all, and refuses a name it does not know', () => {
  expect(partsOf('trace, log')).toEqual(['log', 'trace']);
  expect(partsOf('all')).toEqual(ABLATION_PARTS);
  expect(partsOf('')).toEqual([]);
  expect(() => partsOf('logs')).toThrow(/no part logs; use all or log, logid/);
  expect(Object.keys(PATCHES)).toEqual(ABLATION_PARTS);
});

describe.skipIf(!built)('variants of the built runtime (needs npm run build)', () => {
  it('applies every part, alone and all at once', () => {
    for (const part of ABLATION_PARTS) expect(existsSync(join(ablatedDist([part]), 'runtime/index.js'))).toBe(true);
    expect(existsSync(join(ablatedDist(ABLATION_PARTS), 'runtime/index.js'))).toBe(true);
  });

  it('serves with the parts off: no request line, a constant logid, no headers of its own', async () => {
    /** One GET /hello through a server of the variant; its answer and the lines it logged. */
    const get = async (parts: string[]) => {
      const runtime = (await import(
        pathToFileURL(join(ablatedDist(parts), 'runtime/index.js')).href
      )) as typeof import('../../runtime/index.js');
      const sink = runtime.createMemorySink();
      const app = runtime.createApp({
        functions: [{ name: 'hello', handler: async () => ({ ok: true }) }],
        logger: new runtime.Logger(sink),
      });
      const server = runtime.createHttpServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as { port: number };
        const res = await fetch(`http://127.0.0.1:${port}/hello`);
        return { status: res.status, logid: res.headers.get('x-platform-logid'), body: await res.text(), sink };
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    };
    const on = await get([]);
    expect(on.status).toBe(200);
    expect(on.logid).toMatch(/^[0-9a-f]{16,}/);
    expect(on.sink.records.some((r) => r.path === '/hello')).toBe(true);
    const off = await get(['log', 'logid']);
    expect(off.body).toBe('{"ok":true}');
    expect(off.logid).toBe('0000000000000000ablated0');
    expect(off.sink.records.some((r) => r.path === '/hello')).toBe(false);
    const bare = await get(['headers']);
    expect(bare.status).toBe(200);
    expect(bare.logid).toBeNull();
  });
});
