/**
 * The warning for data left in an older layout: before the app root, each service kept its data
 * in its own `.cloudfn/` (the session used the first folder named). When the app's data home
 * holds nothing yet but a service's folder does, the commands that open the data say so in one
 * line naming that folder, instead of silently starting empty.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppRoot } from './app-root.js';

const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

/**
 * Whether a data home holds any data: a collection, live rooms, a Redis file or MySQL's data folder.
 * @example holdsData('/src/shop/.cloudfn') // false for a new app
 */
export function holdsData(home: string): boolean {
  return (
    entries(join(home, 'platform', 'database')).some((name) => name.endsWith('.json')) ||
    existsSync(join(home, 'platform', 'live', 'rooms.json')) ||
    entries(join(home, 'components', 'redis')).some((name) => name.startsWith('appendonly') || name === 'dump.rdb') ||
    existsSync(join(home, 'components', 'mysql', 'data'))
  );
}

/**
 * The warning line, or undefined when the data home holds data or no service folder does.
 * @example strayDataWarning(findAppRoot(cwd)!) // 'warning: the app's data home …'
 */
export function strayDataWarning(app: AppRoot): string | undefined {
  if (holdsData(app.dataHome)) return undefined;
  const stray = app.services.map((service) => join(service.dir, '.cloudfn')).filter((home) => holdsData(home));
  if (stray.length === 0) return undefined;
  const first = stray[0]!;
  const more = stray.length > 1 ? ` (and ${stray.length - 1} more service folder${stray.length > 2 ? 's' : ''})` : '';
  return `warning: the app's data home ${app.dataHome} is empty, but ${first}${more} holds data from before the app root; move its platform/ and components/ into ${relative(app.root, app.dataHome) || app.dataHome}/ to keep it`;
}
