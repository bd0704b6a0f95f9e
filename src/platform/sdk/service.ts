/**
 * The server SDK stand-in as a local service of `cloudfn dev` (its extension): the console's
 * database panel reads its collections (`GET /_cloudfn/api/database[?collection=…]`,
 * browse.ts) from the data folder the stand-in writes, writes to them (add, replace, delete,
 * export, import, reset under `/_cloudfn/api/database/`, database/console-api.ts), and hears of
 * every change to the store's files, whoever makes it (the `database` event).
 */
import { CloudfnError } from '../../../runtime/errors.js';
import type { Extension } from '../../../runtime/serve/extension.js';
import type { ServiceContext } from '../../local-service.js';
import { PlatformError } from '../errors.js';
import { browseDatabase } from './browse.js';
import { handleDatabaseWrite, isDatabaseWrite } from './database/console-api.js';
import { type StoreWatch, watchStore } from './database/watch.js';
import type { DatabaseView, SdkEvents } from './protocol.js';
import { readSdkOptions } from './sdk-options.js';

/**
 * The stand-in's extension for one dev server.
 * @example const extensions = [sdkService(context)]
 */
export function sdkService(context: ServiceContext): Extension {
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
    hooks: () => [
      (req, res) => {
        const path = (req.url ?? '/').split('?')[0]!;
        if (!isDatabaseWrite(req.method ?? 'GET', path)) return false;
        handleDatabaseWrite(req, res, readSdkOptions().dataDir);
        return true;
      },
    ],
    panel: {
      api: {
        database(query): DatabaseView {
          try {
            return browseDatabase(readSdkOptions().dataDir, query.get('collection'));
          } catch (error) {
            // A bad collection name is the caller's to fix (400); an unreadable file stays a 500.
            if (error instanceof PlatformError && error.code === 'PLATFORM_SDK_BAD_ARGUMENT')
              throw new CloudfnError(error.code, 400, error.message);
            throw error;
          }
        },
      },
    },
    close: () => watch?.close(),
  };
}
