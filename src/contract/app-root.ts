/**
 * Whether a folder is an app root: its `cloudfn.config.json` lists the app's services, folders
 * relative to it, in `"services": ["game", "rank", "profile"]`. Read here alone for
 * `cloudfn client` (docs/client.md#one-client-for-the-app).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The service folders of the app rooted at `root` (absolute, in the config's order), or
 * undefined when `root` is not an app root. A bad `services` throws an Error naming it.
 * @example readAppServices('/src/shop') // ['/src/shop/game', '/src/shop/rank', '/src/shop/profile']
 */
export function readAppServices(root: string): string[] | undefined {
  const file = join(root, 'cloudfn.config.json');
  if (!existsSync(file)) return undefined;
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // not ours to judge here: the project's own loader says what is wrong
  }
  const services = (config as { services?: unknown } | null)?.services;
  if (services === undefined) return undefined;
  if (!Array.isArray(services) || services.length === 0 || services.some((s) => typeof s !== 'string' || s === ''))
    throw new Error(
      `${file} services must list the app's service folders, e.g. ["game", "rank"], got ${JSON.stringify(services)}`,
    );
  return (services as string[]).map((folder) => {
    const path = resolve(root, folder);
    if (!existsSync(path) || !statSync(path).isDirectory())
      throw new Error(`${file} services names ${JSON.stringify(folder)}, which is not a folder at ${path}`);
    return path;
  });
}
