import { describe, expect, it } from 'vitest';
import { commonJs, LazyImport } from '../../runtime/lazy-import.js';

describe('LazyImport', () => {
  it('imports once, on the first load, and keeps the value for synchronous reads', async () => {
    let calls = 0;
    const lazy = new LazyImport(async () => {
      calls++;
      return { answer: 42 };
    });
    expect(lazy.value).toBeUndefined();
    expect(calls).toBe(0);
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    expect(a).toBe(b);
    expect(calls).toBe(1);
    expect(lazy.value).toBe(a);
  });

  it('takes a value provided by code that imported the package itself, and keeps the first', () => {
    const lazy = new LazyImport(async () => 'imported');
    lazy.provide('given');
    lazy.provide('later');
    expect(lazy.value).toBe('given');
  });

  it('passes a failed import to every caller', async () => {
    const lazy = new LazyImport<string>(() => Promise.reject(new Error('no such chunk')));
    await expect(lazy.load()).rejects.toThrow('no such chunk');
    expect(lazy.value).toBeUndefined();
  });
});

describe('commonJs', () => {
  it('reads a CommonJS package from node (names and default) and from an esbuild chunk (default only)', async () => {
    const fromNode = await import('cookie');
    expect(typeof commonJs<typeof fromNode>(fromNode).parse).toBe('function');
    const exports = { parse: () => 1 };
    expect(commonJs<typeof exports>({ default: exports })).toBe(exports);
  });
});
