/**
 * The local object store's data (the `tos` component: src/platform/storage/) as JSON, both ways:
 * every bucket with its objects, each object's key, content type, metadata, stored headers and
 * bytes (base64). Export reads every object; import writes the buckets the file names (replacing
 * their objects, or with `merge` writing over those of the same key); reset empties the store.
 * The file holds the bytes inline, so it suits the data of a dev session (avatars, fixtures),
 * not gigabytes.
 */
import { ObjectStore } from '../../platform/storage/object-store.js';

/** One object in the file. */
export interface StorageObjectData {
  key: string;
  contentType: string;
  /** `x-tos-meta-*`, names without the prefix. */
  meta: Record<string, string>;
  /** Other stored headers (`cache-control`, `content-disposition`, …). */
  headers: Record<string, string>;
  /** The bytes, base64. */
  base64: string;
}

/** The store's data: every bucket, with its objects in key order. */
export interface StorageData {
  buckets: { name: string; objects: StorageObjectData[] }[];
}

/** What an import or reset touched: each bucket and how many objects it holds afterwards. */
export type StorageChange = { name: string; count: number }[];

async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

async function keysOf(store: ObjectStore, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await store.listObjects(bucket, token === undefined ? {} : { continuationToken: token });
    for (const object of page.objects) keys.push(object.key);
    token = page.truncated ? page.nextContinuationToken : undefined;
  } while (token !== undefined);
  return keys;
}

/**
 * Reads every bucket and object of the store in `dir`.
 * @example const data = await exportStorage('/app/.cloudfn/storage')
 */
export async function exportStorage(dir: string): Promise<StorageData> {
  const store = new ObjectStore({ dir });
  const buckets: StorageData['buckets'] = [];
  for (const { name } of await store.listBuckets()) {
    const objects: StorageObjectData[] = [];
    for (const key of await keysOf(store, name)) {
      const { info, body } = await store.getObject(name, key);
      objects.push({
        key,
        contentType: info.contentType,
        meta: { ...info.meta },
        headers: { ...info.headers },
        base64: (await readAll(body)).toString('base64'),
      });
    }
    buckets.push({ name, objects });
  }
  return { buckets };
}

/**
 * Writes the buckets of `data` into the store in `dir`: each bucket created when missing, its
 * objects replaced by the file's (with `merge`, the file's written over the same keys and the
 * others kept).
 * @example await importStorage(dir, data, { merge: false })
 */
export async function importStorage(
  dir: string,
  data: StorageData,
  options: { merge: boolean },
): Promise<StorageChange> {
  const store = new ObjectStore({ dir });
  const existing = new Set((await store.listBuckets()).map((b) => b.name));
  const change: StorageChange = [];
  for (const bucket of data.buckets) {
    if (!existing.has(bucket.name)) await store.createBucket(bucket.name);
    else if (!options.merge)
      for (const key of await keysOf(store, bucket.name)) await store.deleteObject(bucket.name, key);
    for (const object of bucket.objects)
      await store.putObject(bucket.name, object.key, Buffer.from(object.base64, 'base64'), {
        contentType: object.contentType,
        meta: object.meta,
        headers: object.headers,
      });
    change.push({ name: bucket.name, count: (await keysOf(store, bucket.name)).length });
  }
  return change;
}

/**
 * Empties the store in `dir`: every bucket, object and multipart upload; `defaultBucket` comes
 * back empty, so a running dev's functions still find the bucket `TOS_BUCKET` names.
 * @example const removed = await resetStorage(dir, 'cloudfn-dev') // [{ name: 'cloudfn-dev', count: 3 }]
 */
export async function resetStorage(dir: string, defaultBucket?: string): Promise<StorageChange> {
  const store = new ObjectStore(defaultBucket === undefined ? { dir } : { dir, defaultBucket });
  const removed: StorageChange = [];
  for (const { name } of await store.listBuckets()) removed.push({ name, count: (await keysOf(store, name)).length });
  await store.clear();
  return removed;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): boolean =>
  isObject(value) && Object.values(value).every((v) => typeof v === 'string');

/** A bucket name as TOS takes it: 3 to 63 of lowercase letters, digits and `-`, not at either end. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Checks the `storage` of a data file; `refuse` throws with the detail.
 * @example checkStorage(value['storage'], (detail) => { throw new Error(detail) })
 */
export function checkStorage(value: unknown, refuse: (detail: string) => never): StorageData {
  if (!isObject(value) || !Array.isArray(value['buckets']))
    refuse(`"storage" must be an object { "buckets": [{ "name", "objects": [...] }] }, got ${JSON.stringify(value)}`);
  const names = new Set<string>();
  const buckets = (value as { buckets: unknown[] }).buckets.map((bucket, index) => {
    if (!isObject(bucket)) refuse(`storage bucket ${index} must be an object { "name", "objects" }`);
    const name = (bucket as Record<string, unknown>)['name'];
    if (typeof name !== 'string' || !BUCKET_NAME.test(name))
      refuse(
        `storage bucket ${index}: name must be 3 to 63 lowercase letters, digits and "-", got ${JSON.stringify(name)}`,
      );
    if (names.has(name as string)) refuse(`storage bucket ${JSON.stringify(name)} is listed twice`);
    names.add(name as string);
    const objects = (bucket as Record<string, unknown>)['objects'];
    if (!Array.isArray(objects)) refuse(`storage bucket ${JSON.stringify(name)}: objects must be an array`);
    const keys = new Set<string>();
    return {
      name: name as string,
      objects: (objects as unknown[]).map((object, at) => {
        const where = `storage bucket ${JSON.stringify(name)} object ${at}`;
        if (!isObject(object)) refuse(`${where} must be an object { "key", "contentType", "meta", "base64" }`);
        const o = object as Record<string, unknown>;
        if (typeof o['key'] !== 'string' || o['key'] === '')
          refuse(`${where}: key must be a non-empty string, got ${JSON.stringify(o['key'])}`);
        const key = o['key'] as string;
        if (keys.has(key)) refuse(`${where}: key ${JSON.stringify(key)} is listed twice`);
        keys.add(key);
        if (typeof o['base64'] !== 'string' || !BASE64.test(o['base64'] as string))
          refuse(`${where} (${JSON.stringify(key)}): base64 must be the bytes in base64`);
        const contentType = o['contentType'] ?? 'application/octet-stream';
        if (typeof contentType !== 'string')
          refuse(`${where} (${JSON.stringify(key)}): contentType must be a string, got ${JSON.stringify(contentType)}`);
        const meta = o['meta'] ?? {};
        if (!strings(meta)) refuse(`${where} (${JSON.stringify(key)}): meta must be an object of strings`);
        const headers = o['headers'] ?? {};
        if (!strings(headers)) refuse(`${where} (${JSON.stringify(key)}): headers must be an object of strings`);
        return {
          key,
          contentType: contentType as string,
          meta: meta as Record<string, string>,
          headers: headers as Record<string, string>,
          base64: o['base64'] as string,
        };
      }),
    };
  });
  return { buckets };
}
