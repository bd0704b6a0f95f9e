/**
 * Types without writing them twice: `defineFunction` gives the handler the output of
 * `config.params` and holds its return to `config.result`, for each library; the function it
 * returns is typed by what a caller sends and receives. A type test (vitest's typecheck): tsc
 * checks it, and an assertion that does not hold fails its case. What the same functions do
 * when called is in define-function.test.ts.
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineFunction, type ParamsInput } from '../../src/index.js';
import { invoke } from '../../src/testing/index.js';

describe('defineFunction', () => {
  it('types params from a zod schema: the output (defaults applied) inside, the input outside', async () => {
    const config = { params: z.object({ n: z.coerce.number(), tag: z.string().default('none') }) };
    const fn = defineFunction(config, (params) => {
      expectTypeOf(params).toEqualTypeOf<{ n: number; tag: string }>();
      return { doubled: params.n * 2, tag: params.tag };
    });
    expectTypeOf<ParamsInput<typeof config>>().toEqualTypeOf<{ n: unknown; tag?: string | undefined }>();
    expectTypeOf(fn).returns.resolves.toEqualTypeOf<{ doubled: number; tag: string }>();
    const res = await invoke(fn, { query: { n: '4' } });
    expectTypeOf(res.json).toEqualTypeOf<{ doubled: number; tag: string } | undefined>();
  });

  it('types params from valibot and arktype alike', () => {
    defineFunction({ params: v.object({ qty: v.number() }) }, (params) => {
      expectTypeOf(params).toEqualTypeOf<{ qty: number }>();
    });
    defineFunction({ params: type({ qty: 'number', 'note?': 'string' }) }, (params) => {
      expectTypeOf(params.qty).toEqualTypeOf<number>();
      expectTypeOf(params.note).toEqualTypeOf<string | undefined>();
    });
  });

  it('holds the return to config.result, and types what callers get from it', () => {
    const result = z.object({ total: z.number() });
    const fn = defineFunction({ result }, async () => ({ total: 3 }));
    expectTypeOf(fn).returns.resolves.toEqualTypeOf<{ total: number }>();
    // @ts-expect-error total must be a number
    defineFunction({ result }, () => ({ total: 'three' }));
  });

  it('without a schema leaves params untyped', () => {
    defineFunction({ timeout: 5000 }, (params) => {
      expectTypeOf(params).toBeAny();
      return 'ok';
    });
  });
});
