/**
 * The app: an app root with its services and one data home (app-root.ts), and the app's error table.
 */
export { APP_CONFIG_FILE, dataHomeFor, findAppRoot, readServices } from './app-root.js';
export type { AppRoot, AppService } from './app-root.js';
export { appErrors, createAppError } from './errors.js';
export type { AppErrorCode } from './errors.js';
export { holdsData, strayDataWarning } from './stray-data.js';
export {
  appDataTarget,
  componentsDirOf,
  exportAppData,
  importAppData,
  resetAppData,
  summarize,
  type AppDataChange,
  type AppDataTarget,
} from './data/app-data.js';
export { checkAppData, formatAppData, parseAppData, type AppData } from './data/data-file.js';
export type { MysqlData } from './data/mysql-data.js';
export type { RedisKey } from './data/redis-data.js';
export { buildApp, formatAppBuild, type BuildAppOptions, type ServiceBuild } from './build-app.js';
