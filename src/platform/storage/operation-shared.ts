/**
 * What the TOS operation families (object-operations.ts, listing-operations.ts,
 * multipart-operations.ts) share: the owner every listing shows, a header or a whole-number
 * query read from the request, the headers a write sends, a key URL-encoded when the request
 * asks, a JSON body read with a bound, and a bucket made on its first write.
 */
import type { IncomingMessage } from 'node:http';
import { storageError } from './errors.js';
import { type ObjectHead, STORED_HEADERS } from './object-store.js';
import type { TosHttpOptions } from './tos-call.js';

/** The owner every listing shows: the local account. */
export const OWNER = { ID: 'cloudfn-local', DisplayName: 'cloudfn-local' };
/** The prefix of the user metadata's headers. */
export const META_PREFIX = 'x-tos-meta-';
/** The largest JSON body an operation reads (DeleteMultiObjects of 1000 keys fits). */
const MAX_JSON_BODY = 4 * 1024 * 1024;

/** A bucket is made on its first write, with a line in the dev log: the platform's is made in the console. */
export async function ensureBucket(options: TosHttpOptions, bucket: string): Promise<void> {
  if (await options.store.hasBucket(bucket)) return;
  await options.store.createBucket(bucket);
  options.warn(
    `local TOS: made the bucket ${JSON.stringify(bucket)} on its first write; on the platform, create it in the console (对象存储 → 存储桶) or writes fail with NoSuchBucket`,
  );
}

/** A request header, its repeated values joined by commas. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The content type, metadata, stored headers and Content-MD5 a write sends. */
export function readHead(req: IncomingMessage): ObjectHead {
  const meta: Record<string, string> = {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(',') : value;
    if (name.startsWith(META_PREFIX)) meta[name.slice(META_PREFIX.length)] = text;
    else if ((STORED_HEADERS as readonly string[]).includes(name)) headers[name] = text;
  }
  const contentType = header(req, 'content-type');
  const contentMd5 = header(req, 'content-md5');
  return {
    ...(contentType === undefined || contentType === '' ? {} : { contentType }),
    meta,
    headers,
    ...(contentMd5 === undefined ? {} : { contentMd5 }),
  };
}

/** A whole-number query parameter (`InvalidArgument` otherwise), or `undefined` when absent or empty. */
export function intQuery(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw storageError('InvalidArgument', name, JSON.stringify(text), 'give a whole number');
  return Number(text);
}

/** With `encoding-type=url`, keys and prefixes go out URL-encoded, as TOS sends them. */
export function encodeKey(text: string, query: URLSearchParams): string {
  return query.get('encoding-type') === 'url' ? encodeURIComponent(text) : text;
}

/** The request's JSON body, of at most `MAX_JSON_BODY` bytes; `what` names the operation in a refusal. */
export async function readJson(req: IncomingMessage, what: string): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BODY)
      throw storageError(
        'InvalidArgument',
        `the ${what} body`,
        `of more than ${MAX_JSON_BODY} bytes`,
        'send fewer entries per request',
      );
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw storageError(
      'InvalidArgument',
      `the ${what} body`,
      JSON.stringify(text.slice(0, 80)),
      'send the JSON the SDK sends',
    );
  }
}
