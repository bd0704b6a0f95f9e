/** Type checking a project with its own TypeScript: once (`cloudfn build`) or watching (`cloudfn dev`). */
export { findTypeScript, OLDEST_TYPESCRIPT, type TypeScriptSetup } from './find-typescript.js';
export { formatDiagnostic, formatReport, type TypeDiagnostic } from './format.js';
export { checkProject, type CheckResult } from './check.js';
export { watchTypes, type TypeWatcher, type WatchTypesOptions, type TypeReport } from './watch.js';
