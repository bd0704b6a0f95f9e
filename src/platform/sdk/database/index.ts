/**
 * Managing the database stand-in's store as a whole: export, import, reset, the dev server's
 * seed and ephemeral store, the lock that keeps processes from losing each other's writes, and
 * the console's HTTP API over it.
 */
export {
  checkDump,
  exportStore,
  formatDump,
  importStore,
  parseDump,
  resetStore,
  type StoreChange,
  type StoreDump,
} from './dump.js';
export { prepareDevStore, projectDataDir, type DevStore, type DevStoreOptions } from './dev-store.js';
export { LOCK_FILE, withStoreLock } from './lock.js';
export { watchStore, type StoreWatch } from './watch.js';
export { handleDatabaseWrite, isDatabaseWrite, MAX_BODY_BYTES } from './console-api.js';
