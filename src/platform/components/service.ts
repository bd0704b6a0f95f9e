/**
 * The app's components as a local service of `cloudfn dev` (its extension): each `true` of the
 * config's `components` becomes a real server for the session, with its data in
 * `<data home>/components/<name>/` (the app root's `.cloudfn/`, or the project's; kept across restarts), each string an existing
 * server; the platform's variables (`REDIS_ADDRESS`, `MYSQL_USERNAME`, …) are set before any
 * function loads, and the servers stop with dev. In a session of several services
 * (`cloudfn dev game profile`) the session starts them once for all and injects each service's
 * own: this service then only shows them. A local server that ends is logged and restarted
 * (supervise.ts), and the console shows each one's state.
 */
import { join } from 'node:path';
import { dataHomeFor } from '../../app/app-root.js';
import { RUNTIME_FUNCTION } from '../../../runtime/log/record.js';
import type { ServiceContext, ServiceExtension } from '../../local-service.js';
import type { ComponentsAnswer } from './protocol.js';
import { COMPONENT_NAMES, readComponentsSetting } from './settings.js';
import { startComponents } from './start.js';
import { type ComponentStatus, readComponentStatus } from './supervise.js';

/** Where a project's local component servers keep their data, under its data home. */
export const COMPONENTS_DIR = join('.cloudfn', 'components');

/**
 * Set by `cloudfn dev --ephemeral`: the folder of the component servers' data (a temporary one,
 * removed at exit) instead of the data home's `components/`.
 */
export const COMPONENTS_DATA_VAR = 'CLOUDFN_DEV_COMPONENTS_DATA';

/** The components' folder of the project at `root`: its app's data home's, as every service sees it. */
export function componentsDirFor(
  root: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return env[COMPONENTS_DATA_VAR] || join(dataHomeFor(root), 'components');
}

/**
 * Set by a session of several services, which started the components itself and injected each
 * service's variables: the service then starts nothing.
 */
export const COMPONENTS_GIVEN_VAR = 'CLOUDFN_DEV_COMPONENTS_GIVEN';

/**
 * Set by a session beside `COMPONENTS_GIVEN_VAR`: JSON `{ name: dir }` of the local servers it
 * supervises, whose `state.json` the service reads to show their state.
 */
export const COMPONENT_DIRS_VAR = 'CLOUDFN_DEV_COMPONENT_DIRS';

/** The console's words for a status: `restarted 1 time; last ended by SIGKILL`. */
function detail(status: ComponentStatus): string | undefined {
  if (status.restarts === 0 && status.lastExit === undefined) return undefined;
  const times = status.restarts === 1 ? '1 time' : `${status.restarts} times`;
  return `restarted ${times}${status.lastExit === undefined ? '' : `; last ended by ${status.lastExit}`}`;
}

function givenDirs(): Record<string, string> {
  try {
    return JSON.parse(process.env[COMPONENT_DIRS_VAR] ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

/** Makes the extension, starting the project's components first (before the functions load). */
export async function componentsService(context: ServiceContext): Promise<ServiceExtension> {
  const setting = readComponentsSetting(context.config['components']);
  const names = COMPONENT_NAMES.filter((name) => setting[name] !== undefined);
  const shown = (
    dirs: Readonly<Record<string, string | undefined>>,
    statusOf: (name: string) => ComponentStatus | undefined,
  ): ComponentsAnswer => ({
    components: names.map((name) => {
      const status = statusOf(name);
      return {
        name,
        address: process.env[`${name.toUpperCase()}_ADDRESS`] ?? '',
        dir: dirs[name],
        ...(status === undefined ? {} : { state: status.state }),
        ...(status === undefined || detail(status) === undefined ? {} : { detail: detail(status)! }),
      };
    }),
  });
  if (names.length === 0 || process.env[COMPONENTS_GIVEN_VAR] === '1') {
    // The session supervises them: their state is in the folders it names.
    const session = givenDirs();
    const status = (name: string) => {
      const dir = setting[name as keyof typeof setting] === true ? session[name] : undefined;
      return dir === undefined ? undefined : readComponentStatus(dir);
    };
    return { name: 'components', panel: { api: { components: () => shown({}, status) } } };
  }
  const dir = componentsDirFor(context.root);
  const components = await startComponents(setting, {
    dir,
    supervise: true,
    onEvent: (event) => context.logger.line(event.level, '', RUNTIME_FUNCTION, event.message),
  });
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
  const status = (name: string) => components.running.find((c) => c.name === name)?.status();
  return {
    name: 'components',
    panel: { api: { components: () => shown(dirs, status) } },
    close: () => components.stop(),
  };
}
