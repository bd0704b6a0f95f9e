/**
 * The listing of a bucket's objects, as TOS's `listObjectsType2` pages it: the records in key
 * order (UTF-8 bytes, as TOS lists them), the keys under a prefix, those holding the delimiter
 * past it rolled up into common prefixes, and the continuation token that resumes after a page.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { storageError } from './errors.js';
import { readJson, type StoreFolder } from './store-folder.js';
import { type ObjectRecord, toInfo } from './store-records.js';
import type { ListResult, ObjectInfo } from './store-types.js';

const MAX_KEYS = 1000;

/** What a page of `listObjects` asks for. */
export interface ListQuery {
  prefix?: string;
  delimiter?: string;
  maxKeys?: number;
  continuationToken?: string;
  startAfter?: string;
}

/**
 * One page of the bucket's objects in key order (`NoSuchBucket` if there is no such bucket).
 * @example const page = await listObjects(folder, 'app', { prefix: 'a/', delimiter: '/' })
 */
export async function listObjects(folder: StoreFolder, bucket: string, query: ListQuery): Promise<ListResult> {
  await folder.requireBucket(bucket);
  const prefix = query.prefix ?? '';
  const delimiter = query.delimiter ?? '';
  const maxKeys = query.maxKeys ?? MAX_KEYS;
  if (!Number.isInteger(maxKeys) || maxKeys < 0 || maxKeys > MAX_KEYS)
    throw storageError('InvalidArgument', 'max-keys', String(maxKeys), `give a whole number from 0 to ${MAX_KEYS}`);
  const resume = query.continuationToken === undefined ? undefined : decodeToken(query.continuationToken);

  const records = await readRecords(folder, bucket);
  const objects: ObjectInfo[] = [];
  const commonPrefixes: string[] = [];
  let last: { key: string; rolled: boolean } | undefined;
  let truncated = false;
  for (const record of records) {
    const key = record.key;
    if (!key.startsWith(prefix)) continue;
    if (query.startAfter !== undefined && compareKeys(key, query.startAfter) <= 0) continue;
    if (resume && (compareKeys(key, resume.key) <= 0 || (resume.rolled && key.startsWith(resume.key)))) continue;
    const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const rolled = at >= 0 ? key.slice(0, at + delimiter.length) : undefined;
    if (rolled !== undefined && last?.rolled && last.key === rolled) continue;
    if (objects.length + commonPrefixes.length >= maxKeys) {
      truncated = true;
      break;
    }
    if (rolled !== undefined) {
      commonPrefixes.push(rolled);
      last = { key: rolled, rolled: true };
    } else {
      objects.push(toInfo(bucket, record));
      last = { key, rolled: false };
    }
  }
  return {
    objects,
    commonPrefixes,
    truncated,
    ...(truncated && last ? { nextContinuationToken: encodeToken(last) } : {}),
  };
}

/** Every object record of a bucket, in key order. */
async function readRecords(folder: StoreFolder, bucket: string): Promise<ObjectRecord[]> {
  const dir = folder.objectsDir(bucket);
  const records: ObjectRecord[] = [];
  for (const name of await readdir(dir).catch(() => [])) {
    if (!name.endsWith('.json')) continue;
    const record = await readJson<ObjectRecord>(join(dir, name));
    if (record) records.push(record);
  }
  return records.sort((a, b) => compareKeys(a.key, b.key));
}

/** Keys sort by their UTF-8 bytes, as TOS lists them. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function encodeToken(last: { key: string; rolled: boolean }): string {
  return Buffer.from(JSON.stringify([last.key, last.rolled ? 1 : 0])).toString('base64url');
}

function decodeToken(token: string): { key: string; rolled: boolean } {
  try {
    const [key, rolled] = JSON.parse(Buffer.from(token, 'base64url').toString()) as [unknown, unknown];
    if (typeof key === 'string') return { key, rolled: rolled === 1 };
  } catch {
    // refused below
  }
  throw storageError(
    'InvalidArgument',
    'continuation-token',
    JSON.stringify(token),
    'give back the NextContinuationToken of the previous page unchanged',
  );
}
