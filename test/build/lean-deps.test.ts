/**
 * The decoder `cloudfn build` gives raw-body in place of iconv-lite, checked against iconv-lite
 * itself on the same bytes, cut into chunks at every offset (a multi-byte character split
 * across two chunks must come out whole), and through raw-body as a bundle runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { leanDeps } from '../../src/build/lean-deps.js';
import { getDecoder } from '../../src/build/shims/iconv-lite.js';

const TEXT = 'héllo wörld, 你好，世界 — ¥100';
const ENCODINGS = [
  'utf-8',
  'utf8',
  'gbk',
  'gb18030',
  'big5',
  'shift_jis',
  'euc-kr',
  'windows-1252',
  'iso-8859-2',
  'utf-16le',
  'utf-16be',
  'latin1',
  'ucs2',
];

describe('the iconv-lite decoder of bundles', () => {
  it.each(ENCODINGS)('decodes %s as iconv-lite does, at every split of the bytes', (encoding) => {
    // Single-byte encodings hold the Latin part; big5's tables (WHATWG's big5-hkscs in node,
    // iconv-lite's own) differ on Latin letters with accents, so it gets the CJK part only.
    const text = /^(windows-1252|iso-8859-2|latin1)$/.test(encoding)
      ? 'héllo wörld'
      : encoding === 'big5'
        ? 'hello, 你好，世界'
        : TEXT;
    const bytes = iconv.encode(text, encoding);
    const expected = iconv.decode(bytes, encoding);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = getDecoder(encoding);
      const out = decoder.write(bytes.subarray(0, cut)) + decoder.write(bytes.subarray(cut)) + (decoder.end() ?? '');
      expect(out, `${encoding} cut at ${cut}`).toBe(expected);
    }
  });

  it("fails on an unknown encoding with iconv-lite's message, which raw-body turns into a 415", () => {
    expect(() => iconv.getDecoder('klingon')).toThrow(/^Encoding not recognized: 'klingon'/);
    expect(() => getDecoder('klingon')).toThrow(/^Encoding not recognized: 'klingon'/);
  });

  it('replaces iconv-lite for raw-body only, and raw-body decodes with it in a bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudfn-lean-'));
    const result = await build({
      stdin: {
        contents: `import getRawBody from 'raw-body';
import iconv from 'iconv-lite';
export const read = (stream, encoding) => getRawBody(stream, { encoding });
export const own = typeof iconv.encode;`,
        resolveDir: process.cwd(),
        loader: 'js',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
      outfile: join(dir, 'bundle.mjs'),
      metafile: true,
      plugins: [leanDeps()],
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((file) => file.includes('shims/iconv-lite'))).toBe(true);
    // The function's own import of iconv-lite is the real package.
    expect(inputs.some((file) => file.includes('node_modules/iconv-lite/'))).toBe(true);
    const bundled = (await import(pathToFileURL(join(dir, 'bundle.mjs')).href)) as {
      read: (stream: Readable, encoding: string) => Promise<string>;
      own: string;
    };
    expect(bundled.own).toBe('function');
    expect(await bundled.read(Readable.from([iconv.encode('你好', 'gbk')]), 'gbk')).toBe('你好');
    await expect(bundled.read(Readable.from([Buffer.from('x')]), 'klingon')).rejects.toMatchObject({
      status: 415,
      type: 'encoding.unsupported',
    });
    rmSync(dir, { recursive: true, force: true });
  });
});
