/**
 * `cloudfn/runtime`: the server that runs functions, for embedding and for bundles.
 * @example
 * import { serve } from 'cloudfn/runtime';
 * await serve([{ name: 'hello', handler: (params) => ({ hi: params.name }) }]);
 */
export { App, createApp, resolveFunction } from './app.js';
export type { AppInit, FunctionSpec, LoadedFunction, RequestInfo } from './app.js';
export { CloudfnError, HttpError, createError, runtimeErrors } from './errors.js';
export type { ErrorSpec, RuntimeErrorCode } from './errors.js';
export { Logger, serializeRecord, toRecord, RUNTIME_FUNCTION } from './logger.js';
export { createJsonSink, createMemorySink } from './log-sinks.js';
export type { LogLevel, LogRecord, LogSink } from './logger.js';
export { generateLogid, pickLogid } from './logid.js';
export { defaultLimits, optionEnvVars, resolveOptions } from './options.js';
export type { OptionSources, RuntimeOptions } from './options.js';
export { createHttpServer, exitOnSignals, keepServingOnStrayErrors, listen, shutdown } from './server.js';
export { loadProjectFunctions, serve, startProject } from './start.js';
export type { RunningServer, ServeOptions, StartOptions } from './start.js';
export { discoverFunctions, FUNCTION_EXTENSIONS } from './discover.js';
export type { FoundFunction } from './discover.js';
export { functionFromModule, loadFunction, validateConfig } from './load.js';
export type { CompileHook } from './load.js';
export { loadConfigFile, CONFIG_FILES } from './config-file.js';
export type { ConfigFile } from './config-file.js';
export type * from './types.js';
