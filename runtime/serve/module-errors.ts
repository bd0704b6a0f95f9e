/**
 * The runtime's error codes of a function module that cannot be served: it does not compile,
 * exports no handler, or imports an SDK that is not installed. Raised while functions load or
 * build (load.ts, src/build), never by the start code of a bundle whose functions are plain
 * handlers, so they are a table of their own (errors.ts says why).
 */
import { type CloudfnError, type CreateError, defineErrorTable, type ErrorSpec, exposedError } from '../errors.js';

const table = {
  CLOUDFN_COMPILE_ERROR: {
    status: 500,
    message: (file: string) => `${file} failed to compile; fix the error shown in the terminal`,
  },
  CLOUDFN_NO_DEFAULT_EXPORT: {
    status: 500,
    message: (file: string) =>
      `${file} has no default export: export default async function (params, service) { ... } (or module.exports = async (params, service) => { ... })`,
  },
  CLOUDFN_WECHAT_MAIN_EXPORT: {
    status: 500,
    message: (file: string) =>
      `${file} exports main (event, context), the form of a WeChat cloud function; cloudfn calls the default export with (params, service): change the one line exports.main = async (event, context) => to module.exports = async (event, context) => (or export const main = to export default)`,
  },
  CLOUDFN_DEFAULT_EXPORT_NOT_FUNCTION: {
    status: 500,
    message: (file: string, got: string) =>
      `${file}: its default export (or module.exports) is ${got}, not a function: export default async function (params, service) { return ...; }`,
  },
  CLOUDFN_SDK_NOT_INSTALLED: {
    status: 500,
    message: (files: string) =>
      `${files} import @open-dy/node-server-sdk, which is not installed here, so the bundles would stop at start (ERR_MODULE_NOT_FOUND); for an image that runs outside the platform set "sdk": "stand-in" in cloudfn.config.json (or pass --sdk stand-in) to bundle cloudfn's stand-in, or for an image the platform builds install the package from its registry`,
  },
} satisfies Record<string, ErrorSpec>;

export type ModuleErrorCode = keyof typeof table;

// Written for the reader, as the runtime's own messages are: exposed whatever the status.
const errors = /* @__PURE__ */ defineErrorTable(table, exposedError);

/** The rows of this table, joined into `runtimeErrors` (all-errors.ts). */
export const moduleErrors: Readonly<Record<ModuleErrorCode, ErrorSpec>> = errors.rows;

/**
 * Builds the error for `code` (a `CloudfnError`, as `createError` of errors.ts builds).
 * @example throw createModuleError('CLOUDFN_NO_DEFAULT_EXPORT', 'functions/hello.ts')
 */
export const createModuleError: CreateError<typeof table, CloudfnError> = errors.create;
