/**
 * The TOS object operations the local store answers: `putObject`, `copyObject` (the
 * `x-tos-copy-source` header, COPY or REPLACE), `getObject` and `headObject` (ranges, If-Match,
 * If-None-Match, the `response-*` overrides of a presigned URL) and `deleteMultiObjects`, with
 * the object's headers as TOS sends them: `ETag`, `x-tos-hash-crc64ecma`, `x-tos-meta-*` and
 * the stored content headers.
 */
import { storageError } from './errors.js';
import type { ByteRange, ObjectInfo } from './object-store.js';
import { ensureBucket, header, META_PREFIX, readHead, readJson } from './operation-shared.js';
import type { TosAnswer, TosCall, TosHttpOptions } from './tos-call.js';

/** `PUT /<key>`: the body stored under the key, or with `x-tos-copy-source` a copy of another object. */
export async function putObject(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
): Promise<TosAnswer> {
  const { req } = call;
  await ensureBucket(options, bucket);
  const copySource = header(req, 'x-tos-copy-source');
  if (copySource !== undefined) return copyObject(options, call, bucket, key, copySource);
  const info = await options.store.putObject(bucket, key, req, readHead(req));
  return { status: 200, headers: { etag: info.etag, 'x-tos-hash-crc64ecma': info.crc64 } };
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

/** `GET /<key>` and `HEAD /<key>`: the object's headers, and for GET its bytes or a range of them. */
export async function getObject(
  options: TosHttpOptions,
  call: TosCall,
  bucket: string,
  key: string,
): Promise<TosAnswer> {
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

/** `POST /?delete`: the listed objects deleted, each answered as deleted or refused. */
export async function deleteMultiObjects(options: TosHttpOptions, call: TosCall, bucket: string): Promise<TosAnswer> {
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
