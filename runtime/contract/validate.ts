/**
 * A function's contract at run time: `config.params` validated before the handler (which gets
 * the schema's output), `config.result` checked after it. The handler is wrapped once, when the
 * function is loaded (app.ts, the function service's adapter), so a function without a schema
 * is called as it always was and pays nothing per request. Any Standard Schema v1 validator
 * works; no library is special-cased.
 */
import { CloudfnError, errorMessage } from '../errors.js';
import type { FunctionConfig, Handler, Service } from '../types.js';
import { hasContract } from './has-contract.js';
import { issuesText, toIssues } from './pointer.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import { contractErrors, createContractError } from './errors.js';

/** How a contract is enforced. */
export interface ContractOptions {
  /** The source file, named in messages. */
  file: string;
  /**
   * What a result that fails `config.result` does: `answer` a 500 with the issues (cloudfn dev,
   * where `exposeErrors` is on), or `log` them and send the result as returned (production).
   */
  badResult: 'answer' | 'log';
}

export { hasContract } from './has-contract.js';

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** The 500 of a schema that threw rather than returning issues: its detail goes to the log only. */
function schemaFailed(file: string, which: 'params' | 'result', error: unknown): CloudfnError {
  const detail = error instanceof Error ? error.message : String(error);
  // Status 500, so not exposed: the client gets the generic message, the log line this detail.
  const failure = new CloudfnError(
    'CLOUDFN_SCHEMA_FAILED',
    500,
    errorMessage(contractErrors, 'CLOUDFN_SCHEMA_FAILED', [file, which, detail] as never),
    { cause: error },
  );
  if (error instanceof Error && error.stack !== undefined) failure.stack = error.stack;
  return failure;
}

/** The 400 of params that fail their schema: the first issue in the message, all of them in `issues`. */
export function badParams(issues: ReadonlyArray<StandardSchemaV1.Issue>): CloudfnError {
  const list = toIssues(issues);
  const first = list[0] ?? { path: '', message: 'invalid' };
  const error = createContractError('CLOUDFN_BAD_PARAMS', first.path, first.message, list.length);
  error.issues = list;
  return error;
}

/**
 * Wraps `handler` so that its params are validated by `config.params` first and its result
 * checked by `config.result`. Returns `handler` itself when there is neither.
 * @example app handler = withContract(handler, { params: z.object({ name: z.string() }) }, { file, badResult: 'log' })
 */
export function withContract(handler: Handler, config: FunctionConfig, options: ContractOptions): Handler {
  if (!hasContract(config)) return handler;
  const { file, badResult } = options;
  const paramsProps = config.params?.['~standard'];
  const resultProps = config.result?.['~standard'];

  const checkResult =
    resultProps === undefined
      ? undefined
      : (value: unknown, service: Service): unknown => {
          let checked: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
          try {
            checked = resultProps.validate(value);
          } catch (error) {
            throw schemaFailed(file, 'result', error);
          }
          const settle = (outcome: StandardSchemaV1.Result<unknown>): unknown => {
            if (outcome.issues === undefined) return outcome.value;
            const issues = toIssues(outcome.issues);
            if (badResult === 'answer') {
              const error = createContractError('CLOUDFN_BAD_RESULT', file, issuesText(issues));
              error.issues = issues;
              throw error;
            }
            service.error({
              code: 'CLOUDFN_BAD_RESULT',
              message: `the result does not fit config.result of ${file}; sent as returned`,
              issues,
            });
            return value;
          };
          if (checked instanceof Promise)
            return checked.then(settle, (error: unknown) => {
              throw schemaFailed(file, 'result', error);
            });
          return settle(checked);
        };

  const callHandler =
    checkResult === undefined
      ? handler
      : (params: unknown, service: Service): unknown => {
          const out = handler(params, service);
          return isThenable(out)
            ? Promise.resolve(out).then((value) => checkResult(value, service))
            : checkResult(out, service);
        };

  if (paramsProps === undefined) return callHandler as Handler;

  const afterParams = (outcome: StandardSchemaV1.Result<unknown>, service: Service): unknown => {
    if (outcome.issues !== undefined) throw badParams(outcome.issues);
    return callHandler(outcome.value, service);
  };
  return function validated(params: unknown, service: Service): unknown {
    let outcome: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
    try {
      outcome = paramsProps.validate(params);
    } catch (error) {
      throw schemaFailed(file, 'params', error);
    }
    if (outcome instanceof Promise)
      return outcome.then(
        (settled) => afterParams(settled, service),
        (error: unknown) => {
          throw schemaFailed(file, 'params', error);
        },
      );
    return afterParams(outcome, service);
  } as Handler;
}
