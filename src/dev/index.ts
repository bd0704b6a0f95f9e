/**
 * The developer loop: `startDevServer` (watch, reload, the debug console), the pretty log sink
 * and the `.env` parser it uses.
 * @example
 * import { startDevServer } from './index.js';
 * const dev = await startDevServer({ root: 'templates/starter', port: 0 });
 */
export { DEV_TRIGGER_HEADER, startDevServer } from './dev-server.js';
export type { DevServer, DevServerOptions } from './dev-server.js';
export type { FunctionStatus } from './reloader.js';
export { createPrettySink, formatRecord, shouldColor } from './pretty-sink.js';
export type { PrettySinkOptions } from './pretty-sink.js';
export { DotenvLayer, parseDotenv } from './dotenv.js';
export type { ParsedDotenv } from './dotenv.js';
export { parseInspectTarget } from './inspect.js';
export { createDevError, devErrors } from './errors.js';
export { DEV_KEY_VERSION, startDevPlatform } from './with-platform.js';
export type { DevPlatform, DevPlatformOptions } from './with-platform.js';
export type { DevErrorCode } from './errors.js';
