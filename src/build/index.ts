/** Compiling and bundling functions with esbuild (the only place that imports it). */
export { CompileError, createCompileHook, formatMessage } from './compile.js';
export { buildProject, formatBuildTable, formatBytes, MANIFEST } from './bundle.js';
export type { BuildOptions, BuildResult, BuiltBundle } from './bundle.js';
export { checkBundle, checkBundles } from './check-bundles.js';
export { checkProjectLock, findLockGaps } from './lock-check.js';
export type { LockGap } from './lock-check.js';
export type { BundleCheck, BundleChecks } from './check-bundles.js';
export {
  buildFunctionService,
  checkFunctionService,
  formatCheckTable,
  formatFunctionServiceTable,
} from './function-service/index.js';
export type { FunctionServiceBuildOptions, FunctionServiceBuildResult } from './function-service/index.js';
