/** Compiling and bundling functions with esbuild (the only place that imports it). */
export { CompileError, createCompileHook, formatMessage } from './compile.js';
export { buildProject, formatBuildTable, formatBytes, MANIFEST } from './bundle.js';
export type { BuildOptions, BuildResult, BuiltBundle } from './bundle.js';
export { checkBundle } from './check-bundles.js';
export type { BundleCheck } from './check-bundles.js';
export { DEFAULT_HEALTH_PATH, answerHealth, healthPathFrom } from './health.js';
export { initProject, listTemplates, packageNameFor, templatesDir } from './scaffold.js';
export type { InitOptions, InitResult } from './scaffold.js';
