/**
 * The server SDK stand-in as a local service of `cloudfn dev` (its extension): the console's
 * database panel reads its collections (`GET /_cloudfn/api/database[?collection=…]`, browse.ts)
 * from the data folder the stand-in writes.
 */
import { CloudfnError } from '../../../runtime/errors.js';
import type { Extension } from '../../../runtime/serve/extension.js';
import type { ServiceContext } from '../../local-service.js';
import { PlatformError } from '../errors.js';
import { browseDatabase } from './browse.js';
import type { DatabaseView } from './protocol.js';
import { readSdkOptions } from './sdk-options.js';

/**
 * The stand-in's extension for one dev server.
 * @example const extensions = [sdkService(context)]
 */
export function sdkService(_context: ServiceContext): Extension {
  return {
    name: 'sdk',
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
  };
}
