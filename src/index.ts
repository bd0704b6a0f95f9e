/**
 * `cloudfn`: what a function author imports — the handler types and `HttpError`.
 * @example
 * import { HttpError, type Handler } from 'cloudfn';
 * const hello: Handler<{ name?: string }> = async (params, service) => {
 *   if (!params.name) throw new HttpError(400, 'name is required: /hello?name=Ada');
 *   service.log({ greeted: params.name });
 *   return { hello: params.name };
 * };
 * export default hello;
 * @example
 * // cloudfn.config.ts
 * import { defineConfig } from 'cloudfn';
 * export default defineConfig({ port: 3000 });
 * @example
 * import { isUploadFile } from 'cloudfn';
 * if (isUploadFile(params.file)) service.log({ uploaded: params.file.name });
 * @example
 * import { defineFunction } from 'cloudfn';
 * import { z } from 'zod';
 * export default defineFunction({ params: z.object({ name: z.string() }) }, async (params) => ({ hello: params.name }));
 */
export { HttpError, CloudfnError } from '../runtime/errors.js';
export { defineConfig, type CloudfnConfig } from '../runtime/serve/define-config.js';
export { isUploadFile } from '../runtime/body/upload-file.js';
export { defineFunction } from '../runtime/contract/define.js';
export type {
  ContractHandler,
  ParamsInput,
  ParamsOutput,
  ResultInput,
  ResultOutput,
} from '../runtime/contract/define.js';
export type { StandardSchemaV1 } from '../runtime/contract/standard-schema.js';
export type {
  CookieOptions,
  FunctionConfig,
  ScheduleSpec,
  Handler,
  HandlerResult,
  Limits,
  LogMethod,
  MultipartParams,
  Params,
  QueryParams,
  Service,
  Trigger,
  UploadFile,
} from '../runtime/types.js';
