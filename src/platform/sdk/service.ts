/**
 * The server SDK stand-in as a local service of `cloudfn dev` (its extension): the console's
 * database panel reads its collections (`GET ${CLOUDFN_PREFIX}/api/database[?collection=…]`,
 * browse.ts) from the data folder the stand-in writes, writes to them (add, replace, delete,
 * export, import, reset under `${CLOUDFN_PREFIX}/api/database/`, database/console-api.ts), and hears of
 * every change to the store's files, whoever makes it (the `database` event).
 */
import { CloudfnError } from '../../../runtime/errors.js';
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { sendJson, sendJsonError } from '../../../runtime/serve/hook-io.js';
import type { ServiceContext, ServiceExtension } from '../../local-service.js';
import { PlatformError } from '../errors.js';
import { browseDatabase } from './browse.js';
import { handleDatabaseWrite, isDatabaseWrite } from './database/console-api.js';
import { type StoreWatch, watchStore } from './database/watch.js';
import type { DatabaseView, SdkEvents } from './protocol.js';
import { readSdkOptions } from './sdk-options.js';

/** The database's route: a write (database/console-api.ts), else the panel's read of a collection. */
const databaseRoute: RouteHandler = (req, res) => {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (isDatabaseWrite(method, url.pathname)) return handleDatabaseWrite(req, res, readSdkOptions().dataDir);
  try {
    const view: DatabaseView = browseDatabase(readSdkOptions().dataDir, url.searchParams.get('collection'));
    sendJson(res, 200, view, { head: method === 'HEAD' });
  } catch (error) {
    // A bad collection name is the caller's to fix (400); an unreadable file stays a 500.
    const failure =
      error instanceof PlatformError && error.code === 'PLATFORM_SDK_BAD_ARGUMENT'
        ? new CloudfnError(error.code, 400, error.message)
        : error;
    sendJsonError(res, failure, { allow: 'GET, HEAD' });
  }
};

/**
 * The stand-in's extension for one dev server.
 * @example const extensions = [sdkService(context)]
 */
export function sdkService(context: ServiceContext): ServiceExtension {
  let watch: StoreWatch | undefined;
  return {
    name: 'sdk',
    prepare() {
      // The console's database panel follows the store's files, whoever writes them (docs/dev.md).
      watch = watchStore(readSdkOptions().dataDir, () => {
        const event: SdkEvents['database'] = { at: Date.now() };
        context.publish('database', event);
      });
    },
    // The database panel's reads and writes, any method, under `api/database` of the prefix.
    routes: () => ({ 'api/database': databaseRoute }),
    close: () => watch?.close(),
  };
}
