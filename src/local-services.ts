/**
 * The local services of `cloudfn dev`, in one list: each is a folder (src/platform/<service>/,
 * src/schedule/) whose `service.ts` makes its server extension (runtime/serve/extension.ts)
 * from what the dev server knows (local-service.ts). Adding a service is one folder and one
 * entry here; the dev server, the config file's accepted keys and the console read this list.
 * A service's config keys are declared once, in src/config/config-keys.ts, and named by its
 * extension (`configKeys`), so reading a config loads no service; the service's code is
 * imported when a dev server starts.
 */
import type { LocalService, ServiceContext, ServiceExtension } from './local-service.js';

/**
 * Every local service. The order carries no meaning: each answers the routes and hosts it
 * declares (two owners of one stop start-up), and the variables one sets apply before any
 * function loads; test/dev/dispatch.test.ts runs the list reversed.
 */
export const LOCAL_SERVICES: readonly LocalService[] = [
  { name: 'services', load: async () => (await import('./platform/services/service.js')).servicesService },
  { name: 'components', load: async () => (await import('./platform/components/service.js')).componentsService },
  { name: 'storage', load: async () => (await import('./platform/storage/service.js')).storageService },
  { name: 'timers', load: async () => (await import('./schedule/service.js')).timersService },
  { name: 'sdk', load: async () => (await import('./platform/sdk/service.js')).sdkService },
  { name: 'live', load: async () => (await import('./platform/live/service.js')).liveService },
  { name: 'gateway', load: async () => (await import('./platform/gateway/service.js')).gatewayService },
];

/**
 * What services tell each other: `publish` reaches `forward` (the console's open pages) and
 * every listener of the event, which `onPublished` adds.
 * @example const bus = serviceBus((event, data) => hub.publish(event, data))
 */
export function serviceBus(
  forward: (event: string, data: unknown) => void,
): Pick<ServiceContext, 'publish' | 'onPublished'> {
  const heard = new Map<string, Set<(data: unknown) => void>>();
  return {
    publish: (event, data) => {
      forward(event, data);
      for (const listener of heard.get(event) ?? []) listener(data);
    },
    onPublished: (event, listener) => {
      let listeners = heard.get(event);
      if (listeners === undefined) heard.set(event, (listeners = new Set()));
      listeners.add(listener as (data: unknown) => void);
    },
  };
}

/**
 * Imports every service and makes its extension for one dev server, in list order.
 * @example const extensions = await startLocalServices(LOCAL_SERVICES, context)
 */
export async function startLocalServices(
  services: readonly LocalService[],
  context: ServiceContext,
): Promise<ServiceExtension[]> {
  const makers = await Promise.all(services.map((service) => service.load()));
  const made: ServiceExtension[] = [];
  try {
    // One after another, in list order: a service may set variables the next one reads.
    for (const make of makers) made.push(await make(context));
  } catch (error) {
    for (const extension of made.reverse()) await extension.close?.();
    throw error;
  }
  return made;
}
