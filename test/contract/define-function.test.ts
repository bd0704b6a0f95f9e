/**
 * `defineFunction` at run time: the function it returns carries its config for the runtime and
 * runs with validated params; a missing handler is refused. Its types are type tests, in
 * types.test-d.ts.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineFunction } from '../../src/index.js';
import { invoke } from '../../src/testing/index.js';

describe('defineFunction', () => {
  it('runs with params from a zod schema, defaults applied, and carries its config', async () => {
    const config = { params: z.object({ n: z.coerce.number(), tag: z.string().default('none') }) };
    const fn = defineFunction(config, (params) => ({ doubled: params.n * 2, tag: params.tag }));
    expect(fn.config).toBe(config);
    const res = await invoke(fn, { query: { n: '4' } });
    expect(res.json).toEqual({ doubled: 8, tag: 'none' });
  });

  it('keeps the other config keys, and refuses a missing handler', () => {
    const fn = defineFunction({ timeout: 5000 }, () => 'ok');
    expect(fn.config).toEqual({ timeout: 5000 });
    expect(() => defineFunction({}, 'nope' as never)).toThrow(/needs a handler function/);
  });
});
