/**
 * Inner calls in a self-hosted fleet (`cloudfn start` with `innerCallUrls` or
 * `CLOUDFN_INNER_CALL_<ID>`): a call to `http://{SERVICE_ID}-{id}.inner-call.dyc.ivolces.com/…`
 * (or `.dycloud.service`) goes to the base URL the map gives for `id`, with its method, path,
 * headers and body unchanged, as the platform's intranet would carry it. Ids the map does not
 * name, and every other host, are left to the real DNS. On the platform the map is empty and
 * nothing is installed.
 */
import type { App } from '../app.js';
import { requestContext } from '../log/console-capture.js';
import { createError } from '../errors.js';
import type { Extension } from '../serve/extension.js';
import { addInnerCalls } from './host-table.js';
import { addressOf, type ServiceAddress } from './inner-call.js';

/** The variable naming the calling service, which the platform injects. */
export const SERVICE_ID_VAR = 'SERVICE_ID';

/**
 * The extension that routes a fleet's inner calls, or undefined when the map is empty.
 * @example const extension = fleetInnerCalls({ profile: 'http://10.0.0.5:8000' }, process.env)
 */
export function fleetInnerCalls(
  urls: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Extension | undefined {
  const ids = Object.keys(urls);
  if (ids.length === 0) return undefined;
  const self = env[SERVICE_ID_VAR];
  if (self === undefined || self === '')
    throw createError(
      'CLOUDFN_OPTIONS',
      'innerCallUrls',
      `maps ${ids.join(', ')}, but ${SERVICE_ID_VAR} is not set, so the caller of an inner call is unknown; set ${SERVICE_ID_VAR}=<this service's id> as the platform does`,
    );
  const services = new Map<string, ServiceAddress>(ids.map((id) => [id, addressOf(urls[id]!)]));
  const table = { self, services, enableWhere: 'innerCallUrls', unknown: 'pass' } as const;
  let off: (() => Promise<void>) | undefined;
  return {
    name: 'inner-calls',
    // In the process's one host table (host-table.ts), whose hook answers every server's calls.
    prepare: async (app: App) => {
      off = await addInnerCalls({
        table,
        onRefused: (reason) => {
          const x = requestContext.getStore();
          app.logger.line('warn', x?.logid ?? '', x?.fn?.name ?? '', reason);
        },
      });
    },
    close: () => off?.(),
  };
}
