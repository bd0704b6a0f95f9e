/**
 * The app's components as the platform injects them: Redis, MySQL and MongoDB, started locally
 * (`true`) or given by URL, as `REDIS_*`, `MYSQL_*` and `MONGO_*` variables.
 */
export { componentErrors, createComponentError } from './errors.js';
export type { ComponentErrorCode } from './errors.js';
export { startComponents } from './start.js';
export type { Components, StartComponentsOptions } from './start.js';
export type { RunningComponent } from './running.js';
export { COMPONENT_NAMES, componentEnv, readComponentsSetting } from './settings.js';
export type { ComponentEnv, ComponentName, ComponentsSetting } from './settings.js';
export { readComponentStatus } from './supervise.js';
export type { ComponentEvent, ComponentState, ComponentStatus } from './supervise.js';
