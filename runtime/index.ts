/**
 * `cloudfn/runtime`: the server that runs functions, for embedding and for bundles. What is
 * exported here is what embedding needs; the request path's internals (the Exchange, the
 * response writer), the loader's (discovering, importing and checking a function module) and
 * the log records' are not: cloudfn's own tooling imports those from their files.
 * @example
 * import { serve } from 'cloudfn/runtime';
 * await serve([{ name: 'hello', handler: (params) => ({ hi: params.name }) }]);
 */
import { match } from 'path-to-regexp';
import { routePatterns } from './request/router.js';

// Code that embeds the runtime creates apps synchronously (`createApp` with custom routes), so
// path-to-regexp is ready here. A bundle's entry does not come through this module: it loads
// path-to-regexp only for a custom route (router.ts).
routePatterns.provide(match);

export { App } from './app.js';
export { createApp } from './serve/create-app.js';
export type { AppInit } from './app.js';
export { CloudfnError, HttpError, createError } from './errors.js';
export type { ErrorSpec } from './errors.js';
export { runtimeErrors, type RuntimeErrorCode } from './all-errors.js';
export { Logger } from './log/logger.js';
export { RUNTIME_FUNCTION } from './log/record.js';
export type { LogLevel, LogRecord, LogSink } from './log/record.js';
export type { RequestLine } from './log/request-line.js';
export { createJsonSink, createMemorySink, createStdoutSink } from './log/sinks.js';
export type { StdoutSinkOptions } from './log/sinks.js';
export { generateLogid } from './log/logid.js';
export { loadOpenTelemetry } from './trace/otel.js';
export { DEFAULT_HEALTH_PATH, LIMIT_KEYS, defaultLimits, resolveOptions } from './options.js';
export type { OptionSources, RuntimeOptions } from './options.js';
export { createHttpServer, listen } from './serve/http-server.js';
export type { BeforeHook, HttpServerOptions, RequestGuard } from './serve/http-server.js';
export { shutdown } from './serve/drain.js';
export type { ShutdownOptions } from './serve/drain.js';
export { exitOnSignals } from './serve/shutdown.js';
export type { SignalOptions } from './serve/shutdown.js';
export { keepServingOnStrayErrors } from './serve/stray-errors.js';
export { healthHook } from './serve/health.js';
export { serve, startProject } from './serve/start.js';
export type { FunctionSource, RunningServer, ServeOptions, StartOptions } from './serve/start.js';
export type { Extension } from './serve/extension.js';
export type { InjectRequest, InjectResponse } from './serve/inject.js';
export type { CompileHook } from './serve/load.js';
export { loadConfigFile, CONFIG_FILES } from './serve/config-file.js';
export type { ConfigFile } from './serve/config-file.js';
export type * from './types.js';
