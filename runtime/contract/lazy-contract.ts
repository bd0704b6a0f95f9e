/**
 * A function's handler wrapped by its contract's code, loaded when first needed: in a bundle the validation (validate.ts) is then a chunk that a project
 * declaring no `config.params` or `config.result` never reads at start (issue 44, item 4).
 */
import { LazyImport } from '../lazy-import.js';
import { hasContract } from './has-contract.js';
import type { FunctionConfig, Handler, Service } from '../types.js';
import type { ContractOptions } from './validate.js';

const validation = new LazyImport(() => import('./validate.js'));

/**
 * `withContract` of validate.ts, loaded lazily: the load starts here (when the function is
 * loaded), so a request usually finds it done and runs the wrapped handler at once; one that
 * comes first waits for it. Returns `handler` itself for a function without a contract.
 * @example const handler = contracted(fn, { params: z.object({ name: z.string() }) }, { file, badResult: 'log' })
 */
export function contracted(handler: Handler, config: FunctionConfig, options: ContractOptions): Handler {
  if (!hasContract(config)) return handler;
  let wrapped: Handler | undefined;
  const wrap = (module: typeof import('./validate.js')): Handler =>
    (wrapped ??= module.withContract(handler, config, options));
  validation.load().then(wrap, () => undefined);
  return function validated(params: unknown, service: Service): unknown {
    if (wrapped !== undefined) return wrapped(params, service);
    const loaded = validation.value;
    if (loaded !== undefined) return wrap(loaded)(params, service);
    return validation.load().then((module) => wrap(module)(params, service));
  };
}
