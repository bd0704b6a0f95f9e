/**
 * `defineFunction(config, handler)`: a handler typed from its contract, with nothing written
 * twice. Its params are the output of `config.params` (coercions and defaults applied), its
 * return must fit `config.result`, and the function it returns carries `config`, so a module
 * may export it alone as its default. At run time it only attaches `config`.
 */
import type { FunctionConfig, Service } from '../types.js';
import type { StandardSchemaV1 } from './standard-schema.js';

/** What a handler of `config` receives: the output of `config.params`, else the params as parsed. */
export type ParamsOutput<C> = C extends { params: infer S extends StandardSchemaV1 }
  ? StandardSchemaV1.InferOutput<S>
  : // biome-ignore lint/suspicious/noExplicitAny: without a schema, params are whatever the request carries
    any;

/** What a caller of `config`'s function sends: the input of `config.params`, else anything. */
export type ParamsInput<C> = C extends { params: infer S extends StandardSchemaV1 }
  ? StandardSchemaV1.InferInput<S>
  : // biome-ignore lint/suspicious/noExplicitAny: without a schema, params are whatever the request carries
    any;

/** What a handler of `config` must return: the input of `config.result`, else anything. */
export type ResultInput<C> = C extends { result: infer S extends StandardSchemaV1 }
  ? StandardSchemaV1.InferInput<S>
  : unknown;

/** What the caller receives from a handler returning `R`: the output of `config.result`, else `R`. */
export type ResultOutput<C, R> = C extends { result: infer S extends StandardSchemaV1 }
  ? StandardSchemaV1.InferOutput<S>
  : R;

/** The function `defineFunction` returns: callable as the runtime calls it, carrying its config. */
export type ContractHandler<C, R> = ((params: ParamsInput<C>, service: Service) => Promise<ResultOutput<C, R>>) & {
  readonly config: C;
};

/**
 * Types a handler from its contract and attaches the contract to it.
 * @example
 * export default defineFunction({ params: z.object({ name: z.string() }) }, async (params) => ({ hello: params.name }));
 * @example
 * export const config = { params: v.object({ qty: v.number() }), timeout: 5000 };
 * export default defineFunction(config, (params) => ({ total: params.qty * 2 }));
 */
export function defineFunction<const C extends FunctionConfig, R extends ResultInput<C> | Promise<ResultInput<C>>>(
  config: C,
  handler: (params: ParamsOutput<C>, service: Service) => R,
): ContractHandler<C, Awaited<R>> {
  if (typeof handler !== 'function')
    throw new TypeError(`defineFunction(config, handler) needs a handler function, got ${typeof handler}`);
  (handler as unknown as { config: C }).config = config;
  return handler as unknown as ContractHandler<C, Awaited<R>>;
}
