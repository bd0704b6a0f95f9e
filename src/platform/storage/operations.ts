/**
 * The TOS operations the local store answers, picked from a signed request as the SDK sends
 * them (method; bucket from the host; key from the path; the sub-resource in the query) and
 * answered in TOS's wire shapes: JSON bodies with TOS's capitalized names, `ETag`,
 * `x-tos-hash-crc64ecma`, `x-tos-meta-*` and the stored content headers. An operation the store
 * does not emulate (ACLs, tagging, versions, image processing...) is refused with
 * `NotImplemented`, naming it.
 */
import type { IncomingMessage } from 'node:http';
import { storageError } from './errors.js';
import { type ByteRange, type ObjectHead, type ObjectInfo, STORED_HEADERS } from './object-store.js';
import type { TosAnswer, TosCall, TosHttpOptions } from './tos-call.js';

/** The owner every listing shows: the local account. */
const OWNER = { ID: 'cloudfn-local', DisplayName: 'cloudfn-local' };
const META_PREFIX = 'x-tos-meta-';
/** The largest JSON body an operation reads (DeleteMultiObjects of 1000 keys fits). */
const MAX_JSON_BODY = 4 * 1024 * 1024;

/**
 * TOS's sub-resources (query names) that name an operation the local store does not emulate.
 * Other unknown names are ignored, as TOS ignores them (the SDK sends `list-only-once`).
 */
const NOT_EMULATED = [
  'acl',
  'tagging',
  'cors',
  'policy',
  'lifecycle',
  'versioning',
  'versions',
  'append',
  'restore',
  'retention',
  'symlink',
  'rename',
  'fetch',
  'fetchTask',
  'website',
  'encryption',
  'mirror',
  'replication',
  'customdomain',
  'inventory',
  'notification',
  'logging',
  'object-lock',
  'x-tos-process',
  'x-image-process',
  'modify',
];

/**
 * Runs one parsed request against the store.
 * @example const answer = await runOperation(options, call)
 */
export async function runOperation(options: TosHttpOptions, call: TosCall): Promise<TosAnswer> {
  const { method, bucket, key, query } = call;
  for (const name of query.keys()) {
    const version = name === 'versionId' && query.get(name) !== 'null' && query.get(name) !== '';
    if (version || NOT_EMULATED.includes(name))
      throw storageError('NotImplemented', `${method} with the ?${name} sub-resource`);
  }
  if (bucket === undefined) {
    if (method === 'GET') return listBuckets(options);
    throw storageError('MethodNotAllowed', method, 'the service (no bucket in the host or path)');
  }
  if (key === undefined) return bucketOperation(options, call, bucket);
  return objectOperation(options, call, bucket, key);
}

async function listBuckets(options: TosHttpOptions): Promise<TosAnswer> {
  const buckets = await options.store.listBuckets();
  return {
    status: 200,
    json: {
      Buckets: buckets.map((bucket) => ({
        Name: bucket.name,
        CreationDate: bucket.created.toISOString(),
        Location: options.region,
        ExtranetEndpoint: `tos-${options.region}.volces.com`,
        IntranetEndpoint: `tos-${options.region}.ivolces.com`,
        Owner: { ID: OWNER.ID },
      })),
      Owner: { ID: OWNER.ID },
    },
  };
}

async function bucketOperation(options: TosHttpOptions, call: TosCall, bucket: string): Promise<TosAnswer> {
  const { store } = options;
  const { method, query } = call;
  switch (method) {
    case 'PUT':
      await store.createBucket(bucket);
      return { status: 200, headers: { location: `/${bucket}` } };
    case 'HEAD':
      if (!(await store.hasBucket(bucket))) throw storageError('NoSuchBucket', bucket);
      return { status: 200, headers: { 'x-tos-bucket-region': options.region, 'x-tos-storage-class': 'STANDARD' } };
    case 'DELETE':
      await store.deleteBucket(bucket);
      return { status: 204 };
    case 'POST':
      if (query.has('delete')) return deleteMultiObjects(options, call, bucket);
      throw storageError('MethodNotAllowed', method, `the bucket ${bucket} (only POST ?delete)`);
    case 'GET':
      if (query.has('uploads')) return listMultipartUploads(options, bucket);
      if (query.get('list-type') === '2') return listObjectsType2(options, call, bucket);
      throw storageError('NotImplemented', 'listObjects (version 1); call listObjectsType2');
    default:
      throw storageError('MethodNotAllowed', method, `the bucket ${bucket}`);
  }
}

async function objectOperation(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
): Promise<TosAnswer> {
  const { store } = options;
  const { method, query, req } = call;
  const uploadId = query.get('uploadId');
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (uploadId !== null && method === 'GET') return listParts(options, call, bucket, key, uploadId);
      return getObject(options, call, bucket, key);
    case 'PUT': {
      if (uploadId !== null) {
        if (req.headers['x-tos-copy-source'] !== undefined) throw storageError('NotImplemented', 'uploadPartCopy');
        const partNumber = Number(query.get('partNumber'));
        const part = await store.uploadPart(bucket, key, uploadId, partNumber, req, header(req, 'content-md5'));
        return { status: 200, headers: { etag: part.etag, 'x-tos-hash-crc64ecma': part.crc64 } };
      }
      await ensureBucket(options, bucket);
      const copySource = header(req, 'x-tos-copy-source');
      if (copySource !== undefined) return copyObject(options, call, bucket, key, copySource);
      const info = await store.putObject(bucket, key, req, readHead(req));
      return { status: 200, headers: { etag: info.etag, 'x-tos-hash-crc64ecma': info.crc64 } };
    }
    case 'DELETE':
      if (uploadId !== null) {
        await store.abortMultipartUpload(bucket, key, uploadId);
        return { status: 204 };
      }
      await store.deleteObject(bucket, key);
      return { status: 204 };
    case 'POST':
      if (query.has('uploads')) {
        await ensureBucket(options, bucket);
        const { uploadId: created } = await store.createMultipartUpload(bucket, key, readHead(req));
        return { status: 200, json: { Bucket: bucket, Key: encodeKey(key, query), UploadId: created } };
      }
      if (uploadId !== null) return completeMultipartUpload(options, call, bucket, key, uploadId);
      throw storageError(
        'NotImplemented',
        'POST on an object without ?uploads or ?uploadId (appendObject, post-object forms)',
      );
    default:
      throw storageError('MethodNotAllowed', method, `the object ${key}`);
  }
}

/** A bucket is made on its first write, with a line in the dev log: the platform's is made in the console. */
async function ensureBucket(options: TosHttpOptions, bucket: string): Promise<void> {
  if (await options.store.hasBucket(bucket)) return;
  await options.store.createBucket(bucket);
  options.warn(
    `local TOS: made the bucket ${JSON.stringify(bucket)} on its first write; on the platform, create it in the console (对象存储 → 存储桶) or writes fail with NoSuchBucket`,
  );
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The content type, metadata, stored headers and Content-MD5 a write sends. */
function readHead(req: IncomingMessage): ObjectHead {
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

/** The headers of an object's answer (GET, HEAD). */
function objectHeaders(info: ObjectInfo): Record<string, string | number> {
  const headers: Record<string, string | number> = {
    'content-type': info.contentType,
    etag: info.etag,
    'last-modified': info.lastModified.toUTCString(),
    'x-tos-hash-crc64ecma': info.crc64,
    'x-tos-storage-class': 'STANDARD',
    'x-tos-object-type': info.etag.includes('-') ? 'Multipart' : 'Normal',
    'accept-ranges': 'bytes',
    ...info.headers,
  };
  for (const [name, value] of Object.entries(info.meta)) headers[`${META_PREFIX}${name}`] = value;
  return headers;
}

/** `Range: bytes=a-b`, `bytes=a-`, `bytes=-n`; anything else is ignored and the whole object served, as HTTP says. */
function parseRange(text: string | undefined): ByteRange | undefined {
  const match = text === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (match === null) return undefined;
  const [, start, end] = match;
  if (start === '' && end === '') return undefined;
  if (start === '') return { suffix: Number(end) };
  return end === '' ? { start: Number(start) } : { start: Number(start), end: Number(end) };
}

async function getObject(options: TosHttpOptions, call: TosCall, bucket: string, key: string): Promise<TosAnswer> {
  const { req, query, method } = call;
  const info = await options.store.headObject(bucket, key);
  const ifMatch = header(req, 'if-match');
  if (ifMatch !== undefined && !etagListHas(ifMatch, info.etag))
    throw storageError('PreconditionFailed', `If-Match ${ifMatch}`, info.etag);
  const ifNoneMatch = header(req, 'if-none-match');
  if (ifNoneMatch !== undefined && etagListHas(ifNoneMatch, info.etag))
    return { status: 304, headers: { etag: info.etag, 'last-modified': info.lastModified.toUTCString() } };

  const range = parseRange(header(req, 'range'));
  const headers = objectHeaders(info);
  // The response-* query overrides the stored headers (a presigned URL that downloads as a file).
  for (const [name, value] of query) if (name.startsWith('response-')) headers[name.slice('response-'.length)] = value;
  if (method === 'HEAD') return { status: 200, headers: { ...headers, 'content-length': info.size } };
  const answer = await options.store.getObject(bucket, key, range);
  const served = answer.range;
  if (served === undefined)
    return {
      status: 200,
      headers: { ...objectHeaders(answer.info), ...pick(headers), 'content-length': answer.info.size },
      stream: answer.body,
    };
  return {
    status: 206,
    headers: {
      ...objectHeaders(answer.info),
      ...pick(headers),
      'content-range': `bytes ${served.start}-${served.end}/${answer.info.size}`,
      'content-length': served.end - served.start + 1,
    },
    stream: answer.body,
  };
}

/** The response-* overrides among `headers` (what the query changed). */
function pick(headers: Record<string, string | number>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const name of [
    'content-type',
    'content-disposition',
    'cache-control',
    'content-encoding',
    'content-language',
    'expires',
  ])
    if (headers[name] !== undefined) out[name] = headers[name]!;
  return out;
}

function etagListHas(list: string, etag: string): boolean {
  return list.split(',').some((item) => {
    const trimmed = item.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

async function copyObject(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
  source: string,
): Promise<TosAnswer> {
  const { req } = call;
  const path = source.split('?')[0]!.replace(/^\//, '');
  const at = path.indexOf('/');
  let from: { bucket: string; key: string };
  try {
    from = { bucket: decodeURIComponent(path.slice(0, at)), key: decodeURIComponent(path.slice(at + 1)) };
  } catch {
    from = { bucket: '', key: '' };
  }
  if (at <= 0 || from.key === '')
    throw storageError(
      'InvalidArgument',
      'x-tos-copy-source',
      JSON.stringify(source),
      'give /<bucket>/<encoded key>, as copyObject({ srcBucket, srcKey }) sends it',
    );
  const directive = (header(req, 'x-tos-metadata-directive') ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE')
    throw storageError('InvalidArgument', 'x-tos-metadata-directive', directive, 'give COPY or REPLACE');
  const info = await options.store.copyObject(
    from,
    { bucket, key },
    directive === 'REPLACE' ? readHead(req) : undefined,
  );
  return {
    status: 200,
    headers: { 'x-tos-hash-crc64ecma': info.crc64 },
    json: { ETag: info.etag, LastModified: info.lastModified.toISOString() },
  };
}

async function readJson(req: IncomingMessage, what: string): Promise<unknown> {
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

async function deleteMultiObjects(options: TosHttpOptions, call: TosCall, bucket: string): Promise<TosAnswer> {
  if (!(await options.store.hasBucket(bucket))) throw storageError('NoSuchBucket', bucket);
  const body = (await readJson(call.req, 'deleteMultiObjects')) as { Quiet?: boolean; Objects?: { Key?: unknown }[] };
  const objects = body?.Objects;
  if (!Array.isArray(objects) || objects.length === 0 || objects.length > 1000)
    throw storageError(
      'InvalidArgument',
      'Objects',
      JSON.stringify(objects ?? null)?.slice(0, 80) ?? 'null',
      'list 1 to 1000 objects as { Key }',
    );
  const deleted: { Key: string }[] = [];
  const errors: { Key: string; Code: string; Message: string }[] = [];
  for (const entry of objects) {
    const key = entry?.Key;
    if (typeof key !== 'string' || key === '') {
      errors.push({ Key: String(key), Code: 'InvalidArgument', Message: 'each object needs a Key' });
      continue;
    }
    await options.store.deleteObject(bucket, key);
    deleted.push({ Key: key });
  }
  return { status: 200, json: { Deleted: body.Quiet === true ? [] : deleted, Error: errors } };
}

function intQuery(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw storageError('InvalidArgument', name, JSON.stringify(text), 'give a whole number');
  return Number(text);
}

/** With `encoding-type=url`, keys and prefixes go out URL-encoded, as TOS sends them. */
function encodeKey(text: string, query: URLSearchParams): string {
  return query.get('encoding-type') === 'url' ? encodeURIComponent(text) : text;
}

async function listObjectsType2(options: TosHttpOptions, call: TosCall, bucket: string): Promise<TosAnswer> {
  const { query } = call;
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') ?? '';
  const maxKeys = intQuery(query, 'max-keys') ?? 1000;
  const continuationToken = query.get('continuation-token') ?? undefined;
  const startAfter = query.get('start-after') ?? undefined;
  const page = await options.store.listObjects(bucket, {
    prefix,
    delimiter,
    maxKeys,
    ...(continuationToken ? { continuationToken } : {}),
    ...(startAfter ? { startAfter } : {}),
  });
  const fetchOwner = query.get('fetch-owner') === 'true';
  return {
    status: 200,
    json: {
      Name: bucket,
      Prefix: encodeKey(prefix, query),
      MaxKeys: maxKeys,
      ...(delimiter ? { Delimiter: encodeKey(delimiter, query) } : {}),
      ...(query.get('encoding-type') ? { EncodingType: query.get('encoding-type') } : {}),
      ...(startAfter ? { StartAfter: encodeKey(startAfter, query) } : {}),
      ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
      IsTruncated: page.truncated,
      KeyCount: page.objects.length + page.commonPrefixes.length,
      ...(page.nextContinuationToken ? { NextContinuationToken: page.nextContinuationToken } : {}),
      CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: encodeKey(p, query) })),
      Contents: page.objects.map((info) => ({
        Key: encodeKey(info.key, query),
        LastModified: info.lastModified.toISOString(),
        ETag: info.etag,
        Size: info.size,
        StorageClass: 'STANDARD',
        HashCrc64ecma: info.crc64,
        ...(fetchOwner ? { Owner: OWNER } : {}),
      })),
    },
  };
}

async function listMultipartUploads(options: TosHttpOptions, bucket: string): Promise<TosAnswer> {
  const uploads = await options.store.listMultipartUploads(bucket);
  return {
    status: 200,
    json: {
      Bucket: bucket,
      IsTruncated: false,
      Uploads: uploads.map((upload) => ({
        Key: upload.key,
        UploadId: upload.uploadId,
        Initiated: upload.initiated.toISOString(),
        StorageClass: 'STANDARD',
        Owner: OWNER,
      })),
      CommonPrefixes: [],
    },
  };
}

async function listParts(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
  uploadId: string,
): Promise<TosAnswer> {
  const { query } = call;
  const maxParts = intQuery(query, 'max-parts') ?? 1000;
  const marker = intQuery(query, 'part-number-marker') ?? 0;
  const page = await options.store.listParts(bucket, key, uploadId, { maxParts, partNumberMarker: marker });
  return {
    status: 200,
    json: {
      Bucket: bucket,
      Key: encodeKey(key, query),
      UploadId: uploadId,
      PartNumberMarker: marker,
      NextPartNumberMarker: page.nextPartNumberMarker ?? 0,
      MaxParts: maxParts,
      IsTruncated: page.truncated,
      StorageClass: 'STANDARD',
      Owner: OWNER,
      Parts: page.parts.map((part) => ({
        PartNumber: part.partNumber,
        LastModified: part.lastModified.toISOString(),
        ETag: part.etag,
        Size: part.size,
        HashCrc64ecma: part.crc64,
      })),
    },
  };
}

async function completeMultipartUpload(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
  uploadId: string,
): Promise<TosAnswer> {
  const { req, host } = call;
  const all = (header(req, 'x-tos-complete-all') ?? '').toLowerCase() === 'yes';
  let parts: { partNumber: number; etag: string }[] | 'all' = 'all';
  if (!all) {
    const body = (await readJson(req, 'completeMultipartUpload')) as {
      Parts?: { ETag?: unknown; PartNumber?: unknown }[];
    };
    if (!Array.isArray(body?.Parts))
      throw storageError(
        'InvalidArgument',
        'Parts',
        'missing',
        'send { "Parts": [{ "ETag", "PartNumber" }] } or the header x-tos-complete-all: yes',
      );
    parts = body.Parts.map((part) => {
      if (typeof part?.ETag !== 'string' || !Number.isInteger(part?.PartNumber))
        throw storageError(
          'InvalidArgument',
          'a part',
          JSON.stringify(part),
          'give each part its ETag (a string) and PartNumber (a whole number)',
        );
      return { etag: part.ETag, partNumber: part.PartNumber as number };
    });
  }
  const completed = all ? (await options.store.listParts(bucket, key, uploadId)).parts : undefined;
  const info = await options.store.completeMultipartUpload(bucket, key, uploadId, parts);
  const location = `https://${host.startsWith(`${bucket}.`) ? host : `${bucket}.${host}`}/${encodeURIComponent(key)}`;
  return {
    status: 200,
    headers: { etag: info.etag, 'x-tos-hash-crc64ecma': info.crc64, location },
    json: {
      Bucket: bucket,
      Key: key,
      ETag: info.etag,
      Location: location,
      HashCrc64ecma: info.crc64,
      ...(completed
        ? { CompletedParts: completed.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) }
        : {}),
    },
  };
}
