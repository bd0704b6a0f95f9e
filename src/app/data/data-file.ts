/**
 * The file of the app's local data (`cloudfn db export`, `db import`, `dev --seed`,
 * `seedDatabase`): `{ "$cloudfn": "data/1", "documents": {…}, "redis": […], "mysql": {…},
 * "storage": { "buckets": […] } }`,
 * the document store as `db export` has always written it under `documents`, each component's
 * data beside it. A file of the older shape (collections at the top) is read as documents only.
 * `parseAppData` checks the whole file before anything is written, and names what is wrong.
 */
import { dateReplacer, dateReviver } from '../../platform/sdk/store.js';
import { checkDump, type StoreDump } from '../../platform/sdk/database/index.js';
import { createAppError } from '../errors.js';
import { DATABASE_NAME, type MysqlData } from './mysql-data.js';
import { REDIS_TYPES, type RedisKey } from './redis-data.js';
import { checkStorage, type StorageData } from './storage-data.js';

/** The marker and version of the file's shape. */
export const DATA_FORMAT_KEY = '$cloudfn';
export const DATA_FORMAT = 'data/1';

/** The app's local data: the documents, and each component's when the file or the app has it. */
export interface AppData {
  documents: StoreDump;
  /** Every key of the Redis component; absent when the file says nothing of Redis. */
  redis?: RedisKey[];
  /** The MySQL component's databases; absent when the file says nothing of MySQL. */
  mysql?: MysqlData;
  /** The object store's buckets and objects (the `tos` component); absent when the file says nothing of it. */
  storage?: StorageData;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

function checkRedis(value: unknown, refuse: (detail: string) => never): RedisKey[] {
  if (!Array.isArray(value)) refuse(`"redis" must be an array of keys, got ${JSON.stringify(value)}`);
  return (value as unknown[]).map((entry, index) => {
    if (!isObject(entry)) refuse(`redis entry ${index} must be an object { db, key, type, value, ttlMs }`);
    const e = entry as Record<string, unknown>;
    if (typeof e['key'] !== 'string' || e['key'] === '')
      refuse(`redis entry ${index}: key must be a non-empty string, got ${JSON.stringify(e['key'])}`);
    const at = `redis key ${JSON.stringify(e['key'])}`;
    const db = e['db'] ?? 0;
    if (!Number.isInteger(db) || (db as number) < 0 || (db as number) > 15)
      refuse(`${at}: db must be a database number from 0 to 15, got ${JSON.stringify(db)}`);
    const ttl = e['ttlMs'] ?? null;
    if (ttl !== null && (!Number.isInteger(ttl) || (ttl as number) < 0))
      refuse(
        `${at}: ttlMs must be a whole number of ms, or null for a key that never expires, got ${JSON.stringify(ttl)}`,
      );
    const type = e['type'];
    if (!REDIS_TYPES.includes(type as (typeof REDIS_TYPES)[number]))
      refuse(`${at}: type must be one of ${REDIS_TYPES.join(', ')}, got ${JSON.stringify(type)}`);
    const v = e['value'];
    const strings = (list: unknown): boolean => Array.isArray(list) && list.every((item) => typeof item === 'string');
    const ok =
      type === 'string' || type === 'dump'
        ? typeof v === 'string'
        : type === 'hash'
          ? isObject(v) && Object.values(v).every((item) => typeof item === 'string')
          : type === 'zset'
            ? Array.isArray(v) &&
              v.every(
                (pair) =>
                  Array.isArray(pair) &&
                  pair.length === 2 &&
                  typeof pair[0] === 'string' &&
                  typeof pair[1] === 'number',
              )
            : strings(v);
    if (!ok) {
      const shape = {
        string: 'a string',
        dump: 'the base64 of DUMP',
        hash: 'an object of strings',
        list: 'an array of strings',
        set: 'an array of strings',
        zset: 'an array of [member, score] pairs',
      }[type as (typeof REDIS_TYPES)[number]];
      refuse(`${at}: the value of a ${String(type)} must be ${shape}, got ${JSON.stringify(v)}`);
    }
    return { db, key: e['key'], type, value: v, ttlMs: ttl } as RedisKey;
  });
}

function checkMysql(value: unknown, refuse: (detail: string) => never): MysqlData {
  if (!isObject(value))
    refuse(`"mysql" must be an object { "databases": [...], "sql": "..." }, got ${JSON.stringify(value)}`);
  const v = value as Record<string, unknown>;
  const databases = v['databases'];
  if (!Array.isArray(databases)) refuse(`mysql.databases must be an array of names, got ${JSON.stringify(databases)}`);
  for (const name of databases as unknown[])
    if (typeof name !== 'string' || !DATABASE_NAME.test(name))
      refuse(
        `mysql.databases lists ${JSON.stringify(name)}, which is not a database name (letters, digits, _, $ and -)`,
      );
  if (typeof v['sql'] !== 'string') refuse(`mysql.sql must be the dump's SQL text, got ${JSON.stringify(v['sql'])}`);
  if ((databases as string[]).length === 0 && (v['sql'] as string).trim() !== '')
    refuse('mysql.sql is not empty but mysql.databases names no database; list the databases the SQL creates');
  return { databases: databases as string[], sql: v['sql'] as string };
}

/**
 * Checks a value already parsed (dates revived): the shape of `db export`, or a dump of the
 * older shape (collections at the top), read as documents only.
 * @example checkAppData({ todos: [{ title: 'a' }] }, 'seed.json') // { documents: { todos: [...] } }
 */
export function checkAppData(value: unknown, source: string): AppData {
  if (!isObject(value) || !(DATA_FORMAT_KEY in value)) return { documents: checkDump(value, source) };
  const refuse = (detail: string): never => {
    throw createAppError('CLOUDFN_APP_DATA', source, `${detail}; nothing was written`);
  };
  if (value[DATA_FORMAT_KEY] !== DATA_FORMAT)
    refuse(
      `"${DATA_FORMAT_KEY}" must be "${DATA_FORMAT}", got ${JSON.stringify(value[DATA_FORMAT_KEY])}; export the data again with this cloudfn`,
    );
  const unknown = Object.keys(value).filter(
    (key) => ![DATA_FORMAT_KEY, 'documents', 'redis', 'mysql', 'storage'].includes(key),
  );
  if (unknown.length > 0)
    refuse(`unknown key ${JSON.stringify(unknown[0])}; the file holds "documents", "redis", "mysql" and "storage"`);
  const data: AppData = { documents: checkDump(value['documents'] ?? {}, `${source} (documents)`) };
  if (value['redis'] !== undefined) data.redis = checkRedis(value['redis'], refuse);
  if (value['mysql'] !== undefined) data.mysql = checkMysql(value['mysql'], refuse);
  if (value['storage'] !== undefined) data.storage = checkStorage(value['storage'], refuse);
  return data;
}

/**
 * Parses and checks the text of a data file.
 * @example parseAppData(readFileSync('backup.json', 'utf8'), 'backup.json')
 */
export function parseAppData(text: string, source: string): AppData {
  let value: unknown;
  try {
    value = JSON.parse(text, dateReviver);
  } catch (error) {
    throw createAppError('CLOUDFN_APP_DATA', source, `not JSON (${(error as Error).message}); nothing was written`);
  }
  return checkAppData(value, source);
}

/**
 * The text of a data file: the older shape (collections at the top) when there is no component
 * data, so a project without components exports what it always did.
 * @example writeFileSync('backup.json', formatAppData(data))
 */
export function formatAppData(data: AppData): string {
  if (data.redis === undefined && data.mysql === undefined && data.storage === undefined)
    return `${JSON.stringify(data.documents, dateReplacer, 2)}\n`;
  return `${JSON.stringify({ [DATA_FORMAT_KEY]: DATA_FORMAT, ...data }, dateReplacer, 2)}\n`;
}
