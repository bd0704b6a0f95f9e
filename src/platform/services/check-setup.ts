/**
 * The platform around `cloudfn build --target function-service --check`, read from a service's
 * folder as `cloudfn dev` reads it: `SERVICE_ID` (`serviceId`, else the folder's name) and its
 * `innerCall`; `CLOUD_ENV` (`DEV`, as dev and the platform's test environment; `PROD` when the
 * shell asks for it); the variables of the components the config names (`REDIS_ADDRESS`,
 * `MYSQL_USERNAME`, …), from the URL given or from the local server `cloudfn dev` started when it
 * still runs (`.cloudfn/components/<name>/`), else a note; and the other services of the app
 * whose function-service files are built (the folders an app root one folder up lists in
 * `services`, else the folders beside this one), which answer its inner calls.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CheckPlatform } from '../../build/function-service/check-intranet.js';
import { SERVICE_OUTDIR } from '../../build/function-service/check-intranet.js';
import { MANIFEST } from '../../build/outdir.js';
import { loadProjectConfig } from '../../build/project-config.js';
import { readAccount } from '../components/account.js';
import { mysqlServer } from '../components/mysql.js';
import { redisServer } from '../components/redis.js';
import { readLiveRecord } from '../components/server-process.js';
import { COMPONENTS_DIR } from '../components/service.js';
import { COMPONENT_NAMES, componentEnv, readComponentsSetting } from '../components/settings.js';
import { readServiceSetting } from './setting.js';
import { findAppRoot } from '../../app/app-root.js';

/**
 * The other services of the app that have function-service files, by service id.
 * @example await builtSiblings('/src/game') // Map { 'rank' => '/src/rank/dist/function-service' }
 */
export async function builtSiblings(root: string): Promise<Map<string, string>> {
  const parent = dirname(root);
  let folders: string[];
  try {
    // The app root's services (src/app/app-root.ts), else the folders beside this one; a bad
    // list is the app root's commands' to refuse: here it means only that the folders beside
    // are looked at.
    let app: ReturnType<typeof findAppRoot>;
    try {
      app = findAppRoot(root);
    } catch {
      app = undefined;
    }
    folders = app?.services.map((service) => service.dir) ?? readdirSync(parent).map((name) => join(parent, name));
  } catch {
    folders = [];
  }
  const found = new Map<string, string>();
  for (const folder of folders) {
    if (folder === root || !existsSync(join(folder, SERVICE_OUTDIR, MANIFEST))) continue;
    if (!statSync(folder).isDirectory()) continue;
    try {
      found.set(readServiceSetting(folder, await loadProjectConfig(folder)).id, join(folder, SERVICE_OUTDIR));
    } catch {
      // A folder whose config cannot be read is not a service the check can call.
    }
  }
  return found;
}

/**
 * Reads the platform around the check of the service at `root`.
 * @example const platform = await checkPlatform(root, process.env); await checkFunctionService(root, files, { platform })
 */
export async function checkPlatform(root: string, shell: NodeJS.ProcessEnv = process.env): Promise<CheckPlatform> {
  const config = await loadProjectConfig(root);
  const setting = readServiceSetting(root, config);
  const env: Record<string, string> = {
    SERVICE_ID: setting.id,
    CLOUD_ENV: shell['CLOUD_ENV'] === 'PROD' ? 'PROD' : 'DEV',
  };
  const notes: string[] = [];
  const components = readComponentsSetting(config['components']);
  for (const name of COMPONENT_NAMES) {
    const given = components[name];
    if (given === undefined) continue;
    if (typeof given === 'string') {
      Object.assign(env, componentEnv(name, given));
      continue;
    }
    const server = name === 'redis' ? redisServer : name === 'mysql' ? mysqlServer : undefined;
    const dir = join(root, COMPONENTS_DIR, name);
    const record = server === undefined ? undefined : await readLiveRecord(dir);
    if (server === undefined || record === undefined) {
      notes.push(
        `component ${name}: no local server runs (cloudfn dev starts it, in ${join(COMPONENTS_DIR, name)}), so ${name.toUpperCase()}_ADDRESS is not set for the check; start cloudfn dev, or give its URL in components.${name}`,
      );
      continue;
    }
    Object.assign(env, componentEnv(name, server.url(readAccount(dir), record.port)));
  }
  return { service: setting, env, notes, siblings: await builtSiblings(root) };
}
