/**
 * The app: an app root with its services and one data home (app-root.ts), and the app's error table.
 */
export { APP_CONFIG_FILE, dataHomeFor, findAppRoot, readServices } from './app-root.js';
export type { AppRoot, AppService } from './app-root.js';
export { appErrors, createAppError } from './errors.js';
export type { AppErrorCode } from './errors.js';
