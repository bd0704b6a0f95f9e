/**
 * The app's local data as a whole, for `cloudfn db` and `cloudfn dev --seed`: the document store
 * of `dySDK.database()`, the data of each component cloudfn runs locally (`true` in some
 * service's `components`), and the object store of the local TOS (`"tos": true`). The local servers are started for the command, or shared with a
 * running `cloudfn dev`, and stopped after when this process started them. A component given
 * by URL is the user's own server: its data is never read nor written here, and each answer
 * says so.
 */
import { join } from 'node:path';
import { loadProjectConfig } from '../../build/project-config.js';
import {
  COMPONENT_NAMES,
  type ComponentName,
  readComponentsSetting,
  startComponents,
} from '../../platform/components/index.js';
import { exportStore, importStore, resetStore } from '../../platform/sdk/database/index.js';
import { DEFAULT_BUCKET } from '../../platform/storage/setting.js';
import { findAppRoot } from '../app-root.js';
import { createAppError } from '../errors.js';
import type { AppData } from './data-file.js';
import { exportMysql, importMysql, resetMysql } from './mysql-data.js';
import { exportRedis, importRedis, resetRedis } from './redis-data.js';
import { exportStorage, importStorage, resetStorage, type StorageChange } from './storage-data.js';

/** Where a command finds the app's data. */
export interface AppDataTarget {
  /** The document store's folder (its `database/`). */
  readonly dataDir: string;
  /** The folder of the local component servers (`<data home>/components`). */
  readonly componentsDir: string;
  /** The components some service runs locally. */
  readonly local: readonly ('redis' | 'mysql')[];
  /** The components given by URL, with the URL's host (never its account). */
  readonly given: readonly { name: ComponentName; host: string }[];
  /** The object store's folder, when some service runs the local TOS (`"tos": true`). */
  readonly storageDir: string | undefined;
}

/** What an export, import or reset touched. */
export interface AppDataChange {
  /** Each collection touched and how many documents it holds afterwards. */
  readonly collections: { name: string; count: number }[];
  /** Redis keys written or removed, when the command touched Redis. */
  readonly redisKeys?: number;
  /** MySQL databases written or removed, when the command touched MySQL. */
  readonly mysqlDatabases?: string[];
  /** The object store's buckets touched and how many objects each holds (or held, for a reset). */
  readonly storageBuckets?: StorageChange;
  /** One line per component left alone (given by URL). */
  readonly notes: string[];
}

/**
 * The data of the project or app at `root`: the components of every service of its app (or of
 * the project alone), the store in `dataDir`, the servers' data in `componentsDir`, the object
 * store in `storageDir` when a service runs the local TOS.
 * @example const target = await appDataTarget('/src/shop/profile', '/src/shop/.cloudfn/platform', '/src/shop/.cloudfn/components', '/src/shop/.cloudfn/storage');
 */
export async function appDataTarget(
  root: string,
  dataDir: string,
  componentsDir: string,
  storageDir: string,
): Promise<AppDataTarget> {
  const app = findAppRoot(root);
  const roots = app === undefined ? [root] : app.services.map((service) => service.dir);
  const local = new Set<'redis' | 'mysql'>();
  const given = new Map<ComponentName, string>();
  let tos = false;
  for (const dir of roots) {
    const setting = readComponentsSetting((await loadProjectConfig(dir))['components']);
    if (setting.tos === true) tos = true;
    for (const name of COMPONENT_NAMES) {
      const value = setting[name];
      if (value === true && name !== 'mongo') local.add(name);
      else if (typeof value === 'string' && !given.has(name)) {
        let host = value;
        try {
          host = new URL(value).host;
        } catch {
          // readComponentsSetting checked it; keep the text without risking its account.
          host = '(its URL)';
        }
        given.set(name, host);
      }
    }
  }
  return {
    dataDir,
    componentsDir,
    local: [...local].sort(),
    given: [...given].filter(([name]) => !local.has(name as 'redis' | 'mysql')).map(([name, host]) => ({ name, host })),
    storageDir: tos ? storageDir : undefined,
  };
}

const notes = (target: AppDataTarget): string[] =>
  target.given.map(({ name, host }) => `${name}: given by URL (${host}), your own server: left alone`);

/** Runs `work` with the URLs of the local servers, started for it or shared. */
async function withLocal<T>(
  target: AppDataTarget,
  work: (urls: Partial<Record<'redis' | 'mysql', string>>) => Promise<T>,
): Promise<T> {
  if (target.local.length === 0) return work({});
  const setting = Object.fromEntries(target.local.map((name) => [name, true]));
  const components = await startComponents(setting, { dir: target.componentsDir });
  try {
    const urls: Partial<Record<'redis' | 'mysql', string>> = {};
    for (const running of components.running) if (running.name !== 'mongo') urls[running.name] = running.url;
    return await work(urls);
  } finally {
    await components.stop();
  }
}

/** What a command changed, with only the parts it touched: its lines for components given by URL. */
function changeOf(
  target: AppDataTarget,
  collections: AppDataChange['collections'],
  parts: { redisKeys?: number; mysqlDatabases?: string[]; storageBuckets?: StorageChange },
): AppDataChange {
  return {
    collections,
    ...(parts.redisKeys === undefined ? {} : { redisKeys: parts.redisKeys }),
    ...(parts.mysqlDatabases === undefined ? {} : { mysqlDatabases: parts.mysqlDatabases }),
    ...(parts.storageBuckets === undefined ? {} : { storageBuckets: parts.storageBuckets }),
    notes: notes(target),
  };
}

/**
 * Reads everything: the documents, and each local component's data.
 * @example const { data } = await exportAppData(target); writeFileSync('backup.json', formatAppData(data));
 */
export async function exportAppData(target: AppDataTarget): Promise<{ data: AppData; change: AppDataChange }> {
  const documents = await exportStore(target.dataDir);
  const data: AppData = { documents };
  await withLocal(target, async (urls) => {
    if (urls.redis !== undefined) data.redis = await exportRedis(urls.redis);
    if (urls.mysql !== undefined) data.mysql = await exportMysql(urls.mysql);
  });
  if (target.storageDir !== undefined) data.storage = await exportStorage(target.storageDir);
  return {
    data,
    change: changeOf(
      target,
      Object.entries(documents).map(([name, docs]) => ({ name, count: docs.length })),
      {
        redisKeys: data.redis?.length,
        mysqlDatabases: data.mysql?.databases,
        storageBuckets: data.storage?.buckets.map((b) => ({ name: b.name, count: b.objects.length })),
      },
    ),
  };
}

/**
 * Writes a checked file's data: the collections it names replaced (or upserted by `_id` with
 * `merge`), its Redis keys written over those of the same name, its MySQL databases replaced (or,
 * with `merge`, missing tables created and rows replaced by key). A file with data of a
 * component the app does not run locally is refused before anything is written.
 * @example await importAppData(target, parseAppData(text, 'backup.json'), { merge: false }, 'backup.json');
 */
export async function importAppData(
  target: AppDataTarget,
  data: AppData,
  options: { merge: boolean },
  source: string,
): Promise<AppDataChange> {
  for (const name of ['redis', 'mysql'] as const) {
    if (data[name] === undefined || target.local.includes(name)) continue;
    const byUrl = target.given.find((g) => g.name === name);
    const empty = name === 'redis' ? data.redis!.length === 0 : data.mysql!.databases.length === 0;
    if (empty) continue;
    throw createAppError(
      'CLOUDFN_APP_DATA',
      source,
      byUrl === undefined
        ? `it holds ${name} data but no service of the app runs ${name} locally; set "components": { "${name}": true } in a service's cloudfn.config.json, or remove "${name}" from the file; nothing was written`
        : `it holds ${name} data but ${name} is given by URL (${byUrl.host}), your own server, which cloudfn leaves alone; remove "${name}" from the file; nothing was written`,
    );
  }
  if (data.storage !== undefined && target.storageDir === undefined && data.storage.buckets.length > 0)
    throw createAppError(
      'CLOUDFN_APP_DATA',
      source,
      'it holds storage data but no service of the app runs the local TOS; set "components": { "tos": true } in a service\'s cloudfn.config.json, or remove "storage" from the file; nothing was written',
    );
  const documents = await importStore(target.dataDir, data.documents, options);
  let redisKeys: number | undefined;
  let mysqlDatabases: string[] | undefined;
  await withLocal(target, async (urls) => {
    if (data.redis !== undefined && urls.redis !== undefined) {
      await importRedis(urls.redis, data.redis);
      redisKeys = data.redis.length;
    }
    if (data.mysql !== undefined && urls.mysql !== undefined) {
      await importMysql(urls.mysql, data.mysql, options);
      mysqlDatabases = data.mysql.databases;
    }
  });
  const storageBuckets =
    data.storage === undefined || target.storageDir === undefined
      ? undefined
      : await importStorage(target.storageDir, data.storage, options);
  return changeOf(target, documents.collections, { redisKeys, mysqlDatabases, storageBuckets });
}

/**
 * Empties the store and each local component.
 * @example await resetAppData(target)
 */
export async function resetAppData(target: AppDataTarget): Promise<AppDataChange> {
  const documents = await resetStore(target.dataDir);
  let redisKeys: number | undefined;
  let mysqlDatabases: string[] | undefined;
  await withLocal(target, async (urls) => {
    if (urls.redis !== undefined) redisKeys = await resetRedis(urls.redis);
    if (urls.mysql !== undefined) mysqlDatabases = await resetMysql(urls.mysql);
  });
  const storageBuckets =
    target.storageDir === undefined ? undefined : await resetStorage(target.storageDir, DEFAULT_BUCKET);
  return changeOf(target, documents.collections, { redisKeys, mysqlDatabases, storageBuckets });
}

/**
 * One line of what a change touched: `todos (2); redis: 3 keys; mysql: shop; storage: cloudfn-dev (2 objects)`.
 * @example summarize(change)
 */
export function summarize(change: AppDataChange): string {
  const parts = [
    change.collections.length === 0
      ? 'no collections'
      : change.collections.map((c) => `${c.name} (${c.count})`).join(', '),
  ];
  if (change.redisKeys !== undefined) parts.push(`redis: ${change.redisKeys} key${change.redisKeys === 1 ? '' : 's'}`);
  if (change.mysqlDatabases !== undefined)
    parts.push(`mysql: ${change.mysqlDatabases.length === 0 ? 'no databases' : change.mysqlDatabases.join(', ')}`);
  if (change.storageBuckets !== undefined)
    parts.push(
      `storage: ${change.storageBuckets.length === 0 ? 'no buckets' : change.storageBuckets.map((b) => `${b.name} (${b.count} object${b.count === 1 ? '' : 's'})`).join(', ')}`,
    );
  return parts.join('; ');
}

/** The components' folder of a data home. @example componentsDirOf('/src/shop/.cloudfn') */
export const componentsDirOf = (dataHome: string): string => join(dataHome, 'components');
