/**
 * `seedDatabase` and `readDatabase`: the database stand-in (`dySDK.database()`) in unit tests.
 * Each seed starts a store of its own in a temporary folder and points the stand-in at it
 * (CLOUDFN_PLATFORM_DATA of this process), so tests never see each other's data nor the
 * project's `.cloudfn/platform`; the folders are removed when the process exits. Given the
 * components a test started (`startComponents`), they also write and read the Redis keys and
 * MySQL databases, in the file shape of `cloudfn db export` (docs/apps.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAppData, type AppData } from '../app/data/data-file.js';
import { exportMysql, importMysql } from '../app/data/mysql-data.js';
import { exportRedis, importRedis } from '../app/data/redis-data.js';
import { exportStorage, importStorage } from '../app/data/storage-data.js';
import type { Components } from '../platform/components/index.js';
import { PLATFORM_ENV_VARS } from '../platform/media-api/platform-options.js';
import { checkDump, exportStore, importStore } from '../platform/sdk/database/index.js';
import { readSdkOptions } from '../platform/sdk/sdk-options.js';
import type { TestStorage } from './storage.js';

/** Collections and their documents; a date is a `Date` or `{ $date: "<ISO time>" }`. */
export type DatabaseData = Record<string, Record<string, unknown>[]>;

/**
 * The whole local data of an app, as `cloudfn db export` writes it: `{ "$cloudfn": "data/1",
 * documents, redis, mysql, storage }` (docs/apps.md).
 */
export type AppDatabaseData = { $cloudfn: 'data/1'; documents?: DatabaseData } & Partial<Omit<AppData, 'documents'>>;

/** Options of `seedDatabase` and `readDatabase`. */
export interface DatabaseOptions {
  /** The components the test started (`startComponents`): their Redis and MySQL are seeded and read too. */
  readonly components?: Components;
  /** The local TOS the test started (`startStorage`): its buckets and objects are seeded and read too. */
  readonly storage?: TestStorage;
}

const urlOf = (components: Components | undefined, name: 'redis' | 'mysql'): string | undefined =>
  components?.running.find((running) => running.name === name)?.url;

/** The stores this process made, removed at its exit. */
const made: string[] = [];
let cleanupRegistered = false;

/**
 * Starts a private, empty store for the functions this process calls, and writes `data` in it
 * (checked as `cloudfn db import` checks a file; documents without `_id` get one).
 * @example
 * await seedDatabase({ todos: [{ _id: 'a', title: 'first', due: new Date('2026-01-31') }] });
 * const res = await invoke('functions/todos.ts');
 */
export async function seedDatabase(
  data: DatabaseData | AppDatabaseData = {},
  options: DatabaseOptions = {},
): Promise<{ dataDir: string }> {
  const all = checkAppData(data, 'seedDatabase()');
  const dump = checkDump(all.documents, 'seedDatabase()');
  for (const name of ['redis', 'mysql'] as const)
    if (all[name] !== undefined && urlOf(options.components, name) === undefined)
      throw new TypeError(
        `seedDatabase() was given ${name} data but no local ${name}: pass { components } from startComponents({ ${name}: true })`,
      );
  if (all.storage !== undefined && options.storage === undefined)
    throw new TypeError('seedDatabase() was given storage data but no local TOS: pass { storage } from startStorage()');
  const redis = urlOf(options.components, 'redis');
  const mysql = urlOf(options.components, 'mysql');
  if (all.redis !== undefined && redis !== undefined) await importRedis(redis, all.redis);
  if (all.mysql !== undefined && mysql !== undefined) await importMysql(mysql, all.mysql, { merge: false });
  if (all.storage !== undefined && options.storage !== undefined)
    await importStorage(options.storage.dir, all.storage, { merge: false });
  const dataDir = mkdtempSync(join(tmpdir(), 'cloudfn-test-db-'));
  made.push(dataDir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.once('exit', () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  await importStore(dataDir, dump, { merge: false });
  process.env[PLATFORM_ENV_VARS.dataDir] = dataDir;
  return { dataDir };
}

/**
 * Every collection of the store the stand-in uses now (the last `seedDatabase`'s), dates as
 * `Date`s; given `{ components }` or `{ storage }`, the whole data as `cloudfn db export` writes
 * it, with every Redis key and MySQL database of those components and every object of that TOS.
 * @example expect((await readDatabase()).todos).toHaveLength(2)
 * @example expect((await readDatabase({ components })).redis).toContainEqual(expect.objectContaining({ key: 'top' }))
 */
export function readDatabase(): Promise<DatabaseData>;
export function readDatabase(options: DatabaseOptions & { components: Components }): Promise<AppData>;
export function readDatabase(options: DatabaseOptions & { storage: TestStorage }): Promise<AppData>;
export async function readDatabase(options: DatabaseOptions = {}): Promise<DatabaseData | AppData> {
  const documents = await exportStore(readSdkOptions().dataDir);
  if (options.components === undefined && options.storage === undefined) return documents;
  const data: AppData = { documents };
  const redis = urlOf(options.components, 'redis');
  const mysql = urlOf(options.components, 'mysql');
  if (redis !== undefined) data.redis = await exportRedis(redis);
  if (mysql !== undefined) data.mysql = await exportMysql(mysql);
  if (options.storage !== undefined) data.storage = await exportStorage(options.storage.dir);
  return data;
}
