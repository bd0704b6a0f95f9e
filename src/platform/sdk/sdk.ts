/**
 * The `dySDK` object of the stand-in: `context(context)` (getContext, openApiInvoke) and
 * `database()`. Settings are read from the environment on each call, so a dev server that sets
 * them after this module loaded is still followed; the database and the token cache are kept
 * per data folder and per process.
 */
import { headerCarrier, readRequestContext, type SdkRequestContext } from './context.js';
import { createDatabase, type Database } from './database.js';
import { guarded } from './not-emulated.js';
import { OpenApiInvoker, type OpenApiRequest } from './open-api.js';
import { readSdkOptions } from './sdk-options.js';
import { DocumentStore } from './store.js';

/** What `dySDK.context(context)` answers. */
export interface SdkServiceContext {
  /** The caller and live-room fields of the request's gateway headers. */
  getContext(): SdkRequestContext;
  /** An OpenAPI call with the access-token handled (see docs/platform-projects.md#the-server-sdk). */
  openApiInvoke(request: OpenApiRequest): Promise<unknown>;
}

/** The stand-in's `dySDK`. */
export interface DySdk {
  context(context: unknown): SdkServiceContext;
  database(): Database;
}

/**
 * A `dySDK` with its own database handles and token cache.
 * @example const dySDK = createDySdk(); dySDK.database().collection('todos').get()
 */
export function createDySdk(env: Record<string, string | undefined> = process.env): DySdk {
  const databases = new Map<string, Database>();
  const invoker = new OpenApiInvoker();
  return guarded('dySDK', {
    context(context: unknown): SdkServiceContext {
      const carrier = headerCarrier(context);
      return guarded('dySDK.context(context)', {
        getContext: () => readRequestContext(carrier),
        openApiInvoke: (request: OpenApiRequest) =>
          invoker.invoke(readSdkOptions(env), request, readRequestContext(carrier)),
      });
    },
    database(): Database {
      const { dataDir } = readSdkOptions(env);
      let db = databases.get(dataDir);
      if (db === undefined) {
        db = createDatabase(new DocumentStore(dataDir));
        databases.set(dataDir, db);
      }
      return db;
    },
  });
}
