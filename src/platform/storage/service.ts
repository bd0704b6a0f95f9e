/**
 * The local TOS as a local service of `cloudfn dev` (its extension), on when a service's
 * `cloudfn.config.json` has `components: { "tos": true }`: it sets the variables of
 * setting.ts before any function loads, holds the intranet hook from then on (the SDK's agent
 * copies the hook when `new TosClient()` runs, often at a module's top level), answers the
 * platform's TOS hosts (`tos-cn-beijing.volces.com`, `tos-cn-beijing.ivolces.com`, `<bucket>.`
 * either; HTTPS included, in process) and, for a browser or curl, the same requests under the
 * dev route `tos` (`<CLOUDFN_PREFIX>/tos/<host>/<key>?<query>`): a presigned URL with its
 * `https://` replaced by the dev server's URL and that route. Its routes for people, the
 * mini-program's `files` and the console's `api/storage`, are ui-routes.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { holdHook } from '../../../runtime/intranet/host-table.js';
import { requestContext } from '../../../runtime/log/console-capture.js';
import type { Logger } from '../../../runtime/log/logger.js';
import { RUNTIME_FUNCTION } from '../../../runtime/log/record.js';
import type { ServiceContext, ServiceExtension } from '../../local-service.js';
import { ObjectStore } from './object-store.js';
import { TOS_ROUTE } from './presign.js';
import { readTosSetting, TOS_ENV_NAMES, type TosSetting, tosEnv } from './setting.js';
import { tosHandler } from './tos-http.js';
import { storageUiRoutes } from './ui-routes.js';

export { localPresignedUrl, TOS_ROUTE } from './presign.js';

/** Makes the extension; sets the variables and holds the hook at once (before the functions load). */
export async function storageService(context: ServiceContext): Promise<ServiceExtension> {
  const setting = readTosSetting(context.root, context.config);
  if (setting === undefined) return { name: 'storage' };
  const { logger } = context;
  const env = tosEnv(setting);
  for (const name of TOS_ENV_NAMES) {
    const own = context.dotenvValue(name);
    if (own !== undefined && own !== env[name])
      logger.line(
        'info',
        '',
        RUNTIME_FUNCTION,
        `${name} of .env is not used under cloudfn dev: the local TOS signs with its own (${name}=${env[name]})`,
      );
  }
  context.setEnv(env);
  return storageExtension(setting, logger);
}

/**
 * The local TOS's extension over the store of `setting`, the one assembly for `cloudfn dev` and
 * `startStorage` of `cloudfn/testing`: it holds the intranet hook (released at `close`).
 * @example const extension = await storageExtension(localTosSetting(dir), logger)
 */
export async function storageExtension(setting: TosSetting, logger: Logger): Promise<ServiceExtension> {
  const release = await holdHook();
  const store = new ObjectStore({ dir: setting.dir, defaultBucket: setting.bucket });
  const warn = (message: string) => {
    const x = requestContext.getStore();
    logger.line('warn', x?.logid ?? '', x?.fn?.name ?? RUNTIME_FUNCTION, message);
  };
  const handle = tosHandler({ store, keys: setting, region: setting.region, warn });
  logger.line(
    'info',
    '',
    RUNTIME_FUNCTION,
    `local TOS on ${setting.endpoint} (bucket ${setting.bucket}, data in ${setting.dir})`,
  );

  const byHost = (req: IncomingMessage, res: ServerResponse, url: string) => {
    const at = url.indexOf('?');
    handle(req, res, {
      host: String(req.headers.host ?? ''),
      path: at === -1 ? url : url.slice(0, at),
      query: at === -1 ? '' : url.slice(at + 1),
    });
  };
  const byRoute = (req: IncomingMessage, res: ServerResponse, rest: string) => {
    // `/<host>/<key>?<query>`: the host the URL was signed for, then its path.
    const match = /^\/([^/?]+)(\/[^?]*)?(?:\?(.*))?$/.exec(rest);
    handle(req, res, { host: match?.[1] ?? '', path: match?.[2] ?? '/', query: match?.[3] ?? '' });
  };
  // The server's URL, once it listens: the presigned URLs of the console and getTempFileURL open there.
  let serverUrl = '';
  return {
    name: 'storage',
    hosts: () => ({ tos: byHost }),
    // Beside the SDK's route, the mini-program's `files` and the console's `api/storage`.
    routes: () => ({ [TOS_ROUTE]: byRoute, ...storageUiRoutes(store, setting, () => serverUrl) }),
    env: (url) => {
      serverUrl = url;
      return {};
    },
    close: release,
  };
}
