/**
 * The app's components as a local service of `cloudfn dev` (its extension): each `true` of the
 * config's `components` becomes a real server for the session, with its data in
 * `<project>/.cloudfn/components/<name>/` (kept across restarts), each string an existing
 * server; the platform's variables (`REDIS_ADDRESS`, `MYSQL_USERNAME`, …) are set before any
 * function loads, and the servers stop with dev. In a session of several services
 * (`cloudfn dev game profile`) the session starts them once for all and injects each service's
 * own: this service then only shows them.
 */
import { join } from 'node:path';
import { RUNTIME_FUNCTION } from '../../../runtime/log/record.js';
import type { Extension } from '../../../runtime/serve/extension.js';
import type { ServiceContext } from '../../local-service.js';
import type { ComponentsAnswer } from './protocol.js';
import { COMPONENT_NAMES, readComponentsSetting } from './settings.js';
import { startComponents } from './start.js';

/** Where a project's local component servers keep their data. */
export const COMPONENTS_DIR = join('.cloudfn', 'components');

/**
 * Set by a session of several services, which started the components itself and injected each
 * service's variables: the service then starts nothing.
 */
export const COMPONENTS_GIVEN_VAR = 'CLOUDFN_DEV_COMPONENTS_GIVEN';

/** Makes the extension, starting the project's components first (before the functions load). */
export async function componentsService(context: ServiceContext): Promise<Extension> {
  const setting = readComponentsSetting(context.config['components']);
  const names = COMPONENT_NAMES.filter((name) => setting[name] !== undefined);
  const shown = (dirs: Readonly<Record<string, string | undefined>>): ComponentsAnswer => ({
    components: names.map((name) => ({
      name,
      address: process.env[`${name.toUpperCase()}_ADDRESS`] ?? '',
      dir: dirs[name],
    })),
  });
  if (names.length === 0 || process.env[COMPONENTS_GIVEN_VAR] === '1')
    return { name: 'components', panel: { api: { components: () => shown({}) } } };
  const dir = join(context.root, COMPONENTS_DIR);
  const components = await startComponents(setting, { dir });
  context.setEnv(components.env);
  const dirs: Record<string, string | undefined> = {};
  for (const running of components.running) {
    dirs[running.name] = running.dir;
    context.logger.line(
      'info',
      '',
      RUNTIME_FUNCTION,
      `component ${running.name} on ${running.env[`${running.name.toUpperCase()}_ADDRESS`]}${running.dir === undefined ? '' : ` (data in ${running.dir})`}${running.owned ? '' : ' (shared)'}`,
    );
  }
  return { name: 'components', panel: { api: { components: () => shown(dirs) } }, close: () => components.stop() };
}
