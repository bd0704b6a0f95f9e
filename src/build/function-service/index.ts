/** `cloudfn build --target function-service`: files for the platform's function service (Node 14, CommonJS). */
export { buildFunctionService, FUNCTION_SERVICE_TARGET, formatFunctionServiceTable } from './build.js';
export type { FunctionServiceBuildOptions, FunctionServiceBuildResult, FunctionServiceFile } from './build.js';
export { checkFunctionService, EXIT_BOUND_MS, formatCheckTable, ImitationRunner } from './check.js';
export type {
  CheckOptions,
  CheckRequest,
  CheckTimer,
  FunctionServiceCheck,
  FunctionServiceCheckResult,
  HarnessOutput,
} from './check.js';
export { CheckIntranet, defaultCheckPlatform, SERVICE_OUTDIR } from './check-intranet.js';
export type { CheckPlatform, CheckService } from './check-intranet.js';
export type { ImitatedAnswer, ImitatedRequest, RecordedCall } from './imitation.js';
export { checkLimits, MAX_FOLDERS, MAX_JS_FILES, RESERVED_PREFIX } from './limits.js';
export { ensureCheckNode, findCheckNode, NODE14_PACKAGE, node14CacheDir, node14Dir } from './node14.js';
export type { CheckNode } from './node14.js';
