/**
 * `defineConfig` at run time: it returns the config it is given. Its types (exact, so a
 * misspelt key is a type error) are type tests, in define-config.test-d.ts.
 */
import { describe, expect, it } from 'vitest';
import { defineConfig } from '../../src/index.js';

describe('defineConfig', () => {
  it('returns the config as given', () => {
    const config = defineConfig({ port: 3000, healthPath: 'off', limits: { maxBodySize: 1024 } });
    expect(config).toEqual({ port: 3000, healthPath: 'off', limits: { maxBodySize: 1024 } });
  });
});
