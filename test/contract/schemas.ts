/**
 * The same contracts written with each Standard Schema library the runtime is tested against
 * (zod 4, zod 3 through `zod/v3`, valibot 1, arktype 2), for the table of validate.test.ts.
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import type { StandardSchemaV1 } from '../../runtime/contract/standard-schema.js';

/** One library's schemas: each is a Standard Schema. */
export interface Library {
  name: string;
  /** `{ name: string (1+), qty: integer >= 1, tags: string[] = [], items?: { sku, qty: number }[] }`, unknown keys dropped. */
  order: StandardSchemaV1;
  /** `{ n: number }` read from a query string's text (coercion). */
  coerced: StandardSchemaV1;
  /** `{ known: string }` refusing unknown keys. */
  strict: StandardSchemaV1;
  /** `{ "a/b~c": number }`: a key the pointer must escape. */
  odd: StandardSchemaV1;
  /** `{ code: string }` checked by an async refinement (`taken` is refused); undefined when the library has none. */
  async?: StandardSchemaV1;
  /** `{ x: string }` whose refinement throws. */
  throwing: StandardSchemaV1;
}

const boom = (): boolean => {
  throw new Error('lookup table not loaded');
};

export const libraries: Library[] = [
  {
    name: 'zod 4',
    order: z.object({
      name: z.string().min(1),
      qty: z.number().int().min(1),
      tags: z.array(z.string()).default([]),
      items: z.array(z.object({ sku: z.string(), qty: z.number() })).optional(),
    }),
    coerced: z.object({ n: z.coerce.number() }),
    strict: z.strictObject({ known: z.string() }),
    odd: z.object({ 'a/b~c': z.number() }),
    async: z.object({ code: z.string().refine(async (code) => code !== 'taken', 'that code is taken') }),
    throwing: z.object({ x: z.string().refine(boom) }),
  },
  {
    name: 'zod 3',
    order: z3.object({
      name: z3.string().min(1),
      qty: z3.number().int().min(1),
      tags: z3.array(z3.string()).default([]),
      items: z3.array(z3.object({ sku: z3.string(), qty: z3.number() })).optional(),
    }),
    coerced: z3.object({ n: z3.coerce.number() }),
    strict: z3.object({ known: z3.string() }).strict(),
    odd: z3.object({ 'a/b~c': z3.number() }),
    async: z3.object({ code: z3.string().refine(async (code) => code !== 'taken', 'that code is taken') }),
    throwing: z3.object({ x: z3.string().refine(boom) }),
  },
  {
    name: 'valibot 1',
    order: v.object({
      name: v.pipe(v.string(), v.minLength(1)),
      qty: v.pipe(v.number(), v.integer(), v.minValue(1)),
      tags: v.optional(v.array(v.string()), []),
      items: v.optional(v.array(v.object({ sku: v.string(), qty: v.number() }))),
    }),
    coerced: v.object({ n: v.pipe(v.string(), v.transform(Number), v.number()) }),
    strict: v.strictObject({ known: v.string() }),
    odd: v.object({ 'a/b~c': v.number() }),
    async: v.objectAsync({
      code: v.pipeAsync(
        v.string(),
        v.checkAsync(async (code) => code !== 'taken', 'that code is taken'),
      ),
    }),
    throwing: v.object({ x: v.pipe(v.string(), v.check(boom)) }),
  },
  {
    name: 'arktype 2',
    order: type({
      name: 'string > 0',
      qty: 'number.integer >= 1',
      tags: type('string[]').default(() => []),
      'items?': type({ sku: 'string', qty: 'number' }).array(),
      '+': 'delete',
    }),
    coerced: type({ n: 'string.numeric.parse' }),
    strict: type({ known: 'string', '+': 'reject' }),
    odd: type({ 'a/b~c': 'number' }),
    throwing: type({ x: type('string').narrow(boom) }),
  },
];
