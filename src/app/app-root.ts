/**
 * The app root: the folder whose `cloudfn.config.json` lists `"services": ["game", "rank"]`
 * (folders relative to it). `findAppRoot(cwd)` finds it from the root, a service folder or any
 * folder below, and answers its services and the one data home of the app (`<root>/.cloudfn/`:
 * the document store, the components' data, the live rooms). A folder with no app root above
 * it is a single project, whose data home is its own `.cloudfn/`, as before.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createAppError } from './errors.js';

/** The file that makes a folder an app root when it has `services`. */
export const APP_CONFIG_FILE = 'cloudfn.config.json';

/** One service of the app: its folder's name as listed, and the folder. */
export interface AppService {
  /** As written in `services` (`game`, `services/rank`). */
  readonly name: string;
  /** Absolute. */
  readonly dir: string;
}

/** An app root and what it holds. */
export interface AppRoot {
  /** The folder of the root `cloudfn.config.json`, absolute. */
  readonly root: string;
  /** Its services, in the order `services` lists them. */
  readonly services: readonly AppService[];
  /** `<root>/.cloudfn`: the app's one data home. */
  readonly dataHome: string;
  /** The service whose folder holds the folder searched from, when one does. */
  readonly current: AppService | undefined;
}

/** The folder's JSON config, when it has one that parses; undefined otherwise. */
function readConfig(dir: string): Record<string, unknown> | undefined {
  const file = join(dir, APP_CONFIG_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // A service's broken config is reported by the command that loads it, with its own message.
    return undefined;
  }
}

/** Checks `services` of the config at `root` and resolves each folder. */
export function readServices(root: string, value: unknown): AppService[] {
  const file = join(root, APP_CONFIG_FILE);
  const refuse = (detail: string, fix: string): never => {
    throw createAppError('CLOUDFN_APP_CONFIG', file, detail, fix);
  };
  if (!Array.isArray(value) || value.length === 0)
    refuse(
      `"services" must be a non-empty array of folders, got ${JSON.stringify(value)}`,
      'e.g. "services": ["game", "rank"]',
    );
  const services: AppService[] = [];
  for (const name of value as unknown[]) {
    if (typeof name !== 'string' || name.trim() === '')
      refuse(`"services" lists ${JSON.stringify(name)}`, 'each entry is a folder name relative to the app root');
    const folder = name as string;
    const dir = resolve(root, folder);
    const inside = relative(root, dir);
    if (isAbsolute(folder) || inside === '' || inside.startsWith('..'))
      refuse(
        `"services" lists ${JSON.stringify(folder)}, which is not a folder below the app root`,
        'name a subfolder, e.g. "game"',
      );
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      refuse(
        `the service folder ${JSON.stringify(folder)} does not exist`,
        `create it (cloudfn init ${folder}) or remove it from "services"`,
      );
    if (services.some((other) => other.dir === dir))
      refuse(`"services" lists ${JSON.stringify(folder)} twice`, 'list each folder once');
    services.push({ name: folder, dir });
  }
  return services;
}

/**
 * The app root at or above `cwd`, or undefined when there is none (a single project).
 * @example
 * const app = findAppRoot(process.cwd());
 * // { root: '/src/shop', services: [{ name: 'game', dir: '/src/shop/game' }, …], dataHome: '/src/shop/.cloudfn', current: … }
 */
export function findAppRoot(cwd: string): AppRoot | undefined {
  const from = resolve(cwd);
  for (let dir = from; ; dir = dirname(dir)) {
    const config = readConfig(dir);
    if (config !== undefined && config['services'] !== undefined) {
      const services = readServices(dir, config['services']);
      const current = services.find((service) => from === service.dir || from.startsWith(service.dir + sep));
      return { root: dir, services, dataHome: join(dir, '.cloudfn'), current };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The data home of the project at `root`: its app root's `.cloudfn/`, else its own.
 * @example dataHomeFor('/src/shop/rank') // '/src/shop/.cloudfn'
 */
export function dataHomeFor(root: string): string {
  return findAppRoot(root)?.dataHome ?? join(resolve(root), '.cloudfn');
}
