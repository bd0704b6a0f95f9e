/**
 * `cloudfn client` at an app root: every service's offered functions (client-functions.ts, per
 * service) and their types (client-types.ts), written as the one file of app-client-source.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadProjectConfig } from '../build/project-config.js';
import { readServiceSetting } from '../platform/services/setting.js';
import { type AppClientService, appClientSource } from './app-client-source.js';
import { type ClientSelection, clientFunctions, type LeftOut } from './client-functions.js';
import { inlineTypes } from './client-types.js';
import { loadContractProject } from './project.js';

/** What was written of one service. */
export interface WrittenService {
  id: string;
  /** The functions offered. */
  count: number;
  left: LeftOut[];
  /** Why its types are read with `typeof import`, when they are. */
  fallback: string | undefined;
}

/**
 * Writes the one client of the services in `folders` to `out`.
 * @example await writeAppClient(['/src/shop/rank', '/src/shop/profile'], '/src/miniapp/api.ts')
 */
export async function writeAppClient(
  folders: readonly string[],
  out: string,
  options: ClientSelection & { importTypes?: boolean } = {},
): Promise<WrittenService[]> {
  const services: AppClientService[] = [];
  const written: WrittenService[] = [];
  for (const root of folders) {
    const config = await loadProjectConfig(root);
    const { id } = readServiceSetting(root, config);
    const project = await loadContractProject(root);
    const { kept, left } = clientFunctions(project.functions, config, options);
    const functions = kept.map((fn) => ({ name: fn.name, file: fn.file ?? `functions/${fn.name}.ts` }));
    let fallback: string | undefined;
    let types: AppClientService['types'];
    if (options.importTypes !== true) {
      const inline = inlineTypes(root, functions);
      if (inline.ok) types = inline.byName;
      else fallback = inline.reason;
    }
    services.push({ id, root, functions, types });
    written.push({ id, count: functions.length, left, fallback });
  }
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, appClientSource(services, out));
  return written;
}
