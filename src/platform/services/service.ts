/**
 * The app's services as a local service of `cloudfn dev` (its extension): the environment the
 * platform injects (`SERVICE_ID`, `CLOUD_ENV=DEV`, set before any function loads; an id made
 * from a folder's name that is not one is said in one line; a `.env` asking for `PROD` is
 * warned about once and overruled), and the platform's intranet hosts
 * answered for unchanged code: another service of the session for
 * `{SERVICE_ID}-{to}.inner-call.dyc.ivolces.com` (checked as the platform checks: HTTP only,
 * the caller's own id, a target it enabled in `innerCall`), and this dev server's push API and
 * live-room simulator for the `ws-push` and webcast hosts; and the client gateway of
 * `createCloud` calls (gateway.ts). The console lists the services.
 */
import { CLOUDFN_PREFIX } from '../../../runtime/options.js';
import { SERVICE_CONFIG_KEYS } from '../../config/config-keys.js';
import { addInnerCalls } from '../../../runtime/intranet/host-table.js';
import { addressOf, type InnerCallTable, type ServiceAddress } from '../../../runtime/intranet/inner-call.js';
import { requestContext } from '../../../runtime/log/console-capture.js';
import { RUNTIME_FUNCTION } from '../../../runtime/log/record.js';
import type { ServiceContext, ServiceExtension } from '../../local-service.js';
import type { ServicesAnswer } from './protocol.js';
import { gatewayHook } from './gateway.js';
import { readGatewayLimits, readServiceSetting, readSessionMap, type SessionMap } from './setting.js';

/** The variables of earlier versions, each with the plain host a function calls instead (docs/gateway.md). */
const RETIRED_VARIABLES = { CLOUDFN_WS_PUSH_URL: 'ws-push.dyc.ivolces.com', CLOUDFN_LIVE_URL: 'webcast.bytedance.com' };

/** Makes the extension; sets the platform's variables at once (before the functions load). */
export function servicesService(context: ServiceContext): ServiceExtension {
  const { root, config, logger } = context;
  const setting = readServiceSetting(root, config);
  const limits = readGatewayLimits(root, config);
  const session: SessionMap | undefined = readSessionMap(process.env);
  const asked = context.dotenvValue('CLOUD_ENV') ?? process.env['CLOUD_ENV'];
  context.setEnv({ SERVICE_ID: setting.id, CLOUD_ENV: 'DEV' });
  if (setting.derivedFrom !== undefined)
    logger.line(
      'info',
      '',
      RUNTIME_FUNCTION,
      `SERVICE_ID is "${setting.id}", made from the folder's name ${JSON.stringify(setting.derivedFrom)} (a service id is lower-case letters, digits and inner hyphens); set "serviceId" in cloudfn.config.json to choose it`,
    );
  if (asked !== undefined && asked !== 'DEV')
    logger.line(
      'warn',
      '',
      RUNTIME_FUNCTION,
      `CLOUD_ENV=${asked} is ignored: cloudfn dev always runs as CLOUD_ENV=DEV, as the platform's test environment does; code that branches on PROD runs only when deployed`,
    );
  for (const [name, host] of Object.entries(RETIRED_VARIABLES)) {
    const set = context.dotenvValue(name) ?? process.env[name];
    if (set !== undefined)
      logger.line(
        'warn',
        '',
        RUNTIME_FUNCTION,
        `${name}=${set} is no longer read: call the plain host ${host} itself, as on the platform; cloudfn dev answers it`,
      );
  }
  let selfUrl: string | undefined;
  let off: (() => Promise<void>) | undefined;
  const services = new Map<string, ServiceAddress>();
  for (const [id, url] of Object.entries(session ?? {})) services.set(id, addressOf(url));
  const table: InnerCallTable = {
    self: setting.id,
    services,
    enabled: setting.innerCall,
    enableWhere: setting.innerCallWhere,
  };
  return {
    name: 'services',
    configKeys: SERVICE_CONFIG_KEYS.services,
    // The session's services in the process's host table; another dev server of this process
    // (a test's) answers for its own requests. The push and webcast hosts are the gateway's and
    // the live rooms' own (their `hosts`).
    prepare: async (app) => {
      off = await addInnerCalls({
        table,
        app,
        onRefused: (reason) => {
          const x = requestContext.getStore();
          logger.line('warn', x?.logid ?? '', x?.fn?.name ?? RUNTIME_FUNCTION, reason);
        },
      });
    },
    // The client gateway in front of this service, which `createCloud` calls address by their
    // header: it answers a call in the platform's place, or passes it on to the function.
    hosts: () => {
      const gateway = gatewayHook({
        self: setting.id,
        session,
        limits,
        warn: (logid, message) => logger.line('warn', logid, RUNTIME_FUNCTION, message),
      });
      return { gateway: (req, res, _path, next) => void (gateway(req, res) || next?.()) };
    },
    env: (url) => {
      selfUrl = url;
      if (!services.has(setting.id)) services.set(setting.id, addressOf(url));
      return {};
    },
    panel: {
      api: {
        services: (): ServicesAnswer => {
          const all = {
            ...session,
            ...(selfUrl === undefined ? {} : { [setting.id]: session?.[setting.id] ?? selfUrl }),
          };
          return {
            self: setting.id,
            innerCall: setting.innerCall,
            services: Object.entries(all).map(([id, url]) => ({
              id,
              url,
              console: `${url}${CLOUDFN_PREFIX}/`,
              self: id === setting.id,
              enabled: setting.innerCall.includes(id),
            })),
          };
        },
      },
    },
    close: () => off?.(),
  };
}
