/**
 * The local TOS's routes for people rather than the SDK, in one place for `cloudfn dev` and
 * `startStorage` of `cloudfn/testing`: the mini-program's `<CLOUDFN_PREFIX>/files/` (files-routes.ts)
 * and the console's `<CLOUDFN_PREFIX>/api/storage` (console-api.ts), their presigned URLs minted for
 * the platform's host (presign.ts) and turned into the dev route that opens them locally
 * (`localPresignedUrl`, `<CLOUDFN_PREFIX>/tos/<host>/<key>?…`), on the server's own URL.
 */
import type { RouteHandler } from '../../../runtime/serve/extension.js';
import { FILES_ROUTE } from '../../client/storage-wire.js';
import { storageConsoleRoute } from './console-api.js';
import { filesRoute } from './files-routes.js';
import type { ObjectStore } from './object-store.js';
import { localPresignedUrl, presignPlatformGet } from './presign.js';
import { STORAGE_API_ROUTE } from './protocol.js';
import type { TosSetting } from './setting.js';

/**
 * The routes, keyed as an extension's `routes` are; `serverUrl` is read when a URL is minted.
 * @example routes: () => ({ [TOS_ROUTE]: byRoute, ...storageUiRoutes(store, setting, () => url) })
 */
export function storageUiRoutes(
  store: ObjectStore,
  setting: TosSetting,
  serverUrl: () => string,
): Record<string, RouteHandler> {
  const presignGet = (bucket: string, key: string, expires: number): string =>
    localPresignedUrl(
      presignPlatformGet({
        keys: setting,
        region: setting.region,
        endpoint: setting.endpoint,
        bucket,
        key,
        expires,
      }).href,
      serverUrl(),
    );
  return {
    [FILES_ROUTE]: filesRoute({ store, bucket: setting.bucket, presignGet, env: process.env['CLOUD_ENV'] ?? 'local' }),
    [STORAGE_API_ROUTE]: storageConsoleRoute({ store, defaultBucket: setting.bucket, presignGet }),
  };
}
